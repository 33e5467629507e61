package patio

import (
	"context"
	"slices"
	"time"
)

// AlarmRef is a pending timed event as the store indexes it: which record, which event, when.
// Key is the index entry, which a firing is conditioned on: an alarm that moved or fired since it
// was read is not fired again.
type AlarmRef struct {
	Resource string // ResourceActivity or ResourceFinancial
	TeamID   string
	ID       string
	Type     string // AlarmDueSoon or AlarmOverdue
	At       time.Time
	Key      string
}

// AlarmStore finds and fires the timed events of records.
type AlarmStore interface {
	// DueAlarms returns the pending alarms scheduled at or before until, reading only their index
	// entries (a sparse index that holds pending alarms only: records without one are not in it,
	// and a firing takes its alarm out). An alarm a missed tick left behind is among them.
	DueAlarms(ctx context.Context, until time.Time) ([]AlarmRef, error)
	// FireAlarm marks the alarm as fired on its record, only if it is still the record's pending
	// alarm (false otherwise), without changing the record's revision or updated_at. The mark is
	// the change the webhook dispatcher turns into the event, recorded at at.
	FireAlarm(ctx context.Context, a AlarmRef, at time.Time) (bool, error)
}

// Timer fires the timed events of activities and financial records:
// each tick reads the pending alarms due up to Lookahead ahead (those a missed or failed tick left
// behind included, however late), fires those due, and waits for each of the others until its
// time within the tick, so that a tick every Lookahead fires every alarm within moments of its
// time. Two ticks running at once never fire one alarm twice (FireAlarm is conditional).
type Timer struct {
	Store     AlarmStore
	Lookahead time.Duration    // how far ahead: the tick period
	Now       func() time.Time // the clock; time.Now when nil
}

// Tick runs one tick and returns how many alarms it fired.
func (t Timer) Tick(ctx context.Context) (int, error) {
	now := t.clock()
	alarms, err := t.Store.DueAlarms(ctx, now.Add(t.Lookahead))
	if err != nil {
		return 0, err
	}
	slices.SortFunc(alarms, func(a, b AlarmRef) int { return a.At.Compare(b.At) })
	fired := 0
	for _, a := range alarms {
		if wait := a.At.Sub(t.clock()); wait > 0 {
			select {
			case <-ctx.Done():
				return fired, ctx.Err()
			case <-time.After(wait):
			}
		}
		ok, err := t.Store.FireAlarm(ctx, a, t.clock())
		if err != nil {
			return fired, err
		}
		if ok {
			fired++
		}
	}
	return fired, nil
}

func (t Timer) clock() time.Time {
	if t.Now == nil {
		return time.Now()
	}
	return t.Now()
}
