package dynamostore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// The timed events' index holds each record's pending alarm only; firing is conditional (two ticks
// fire once), leaves revision and updated_at alone, and moves the alarm on; completing disarms it
// and moving due_at arms it again.
func TestAlarms(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewActivities(s.Activities())
	now := time.Now().UTC()
	due := patio.NewTimestamp(now.Add(3 * time.Hour)) // less than 24 h away: due soon at once
	a, err := svc.Create(ctx, team, patio.ActivityInput{Type: patio.Some("call"), Title: patio.Some("Ligar"), DueAt: patio.Some(due)})
	if err != nil {
		t.Fatal(err)
	}
	window := func() []patio.AlarmRef { return dueAlarms(t, s, team, now.Add(5*time.Hour)) }
	alarms := window()
	if len(alarms) != 1 || alarms[0].Type != patio.AlarmDueSoon || alarms[0].ID != a.ID {
		t.Fatalf("DueAlarms = %+v; want the activity's due soon", alarms)
	}
	// A tick reads everything due by the end of its window: nothing before the alarm's time, and
	// the alarm still after days of missed ticks.
	if early := readDue(t, s, team, now.Add(-time.Minute)); len(early) != 0 {
		t.Errorf("DueAlarms until a minute before the alarm = %+v; want none", early)
	}
	if late := dueAlarms(t, s, team, now.Add(72*time.Hour)); len(late) != 1 || late[0].Key != alarms[0].Key {
		t.Errorf("DueAlarms three days on = %+v; want the due soon a missed tick left, %s", late, alarms[0].Key)
	}
	var wg sync.WaitGroup
	results := make([]bool, 2)
	for i := range results {
		wg.Go(func() {
			ok, err := s.FireAlarm(ctx, alarms[0], time.Now())
			if err != nil {
				t.Errorf("FireAlarm = %v", err)
			}
			results[i] = ok
		})
	}
	wg.Wait()
	if results[0] == results[1] {
		t.Errorf("two concurrent FireAlarm = %v; want exactly one true", results)
	}
	fired, err := svc.Get(ctx, team, a.ID)
	if err != nil || fired.Revision != a.Revision || fired.UpdatedAt != a.UpdatedAt || fired.DueSoonFired == nil {
		t.Errorf("after firing: %+v, %v; want due soon marked, revision and updated_at unchanged", fired, err)
	}
	next := window()
	if len(next) != 1 || next[0].Type != patio.AlarmOverdue || !next[0].At.Equal(due.Time()) {
		t.Errorf("after firing due soon, DueAlarms = %+v; want the overdue at due_at", next)
	}
	if _, err := svc.Update(ctx, team, a.ID, patio.ActivityInput{Status: patio.Some(string(patio.ActivityCompleted))}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.FireAlarm(ctx, next[0], time.Now()); ok {
		t.Errorf("FireAlarm of a completed activity = true; want nothing fired")
	}
	reopened, err := svc.Update(ctx, team, a.ID, patio.ActivityInput{Status: patio.Some(string(patio.ActivityPending)),
		DueAt: patio.Some(patio.NewTimestamp(now.Add(4 * time.Hour)))})
	if err != nil {
		t.Fatal(err)
	}
	if alarm, ok := reopened.NextAlarm(); !ok || alarm.Type != patio.AlarmDueSoon {
		t.Errorf("moved due_at: next alarm = %+v %v; want due soon armed again", alarm, ok)
	}
}

// readDue returns the team's alarms due by until, as the index has them now.
func readDue(t *testing.T, s *dynamostore.Store, team string, until time.Time) []patio.AlarmRef {
	t.Helper()
	got, err := s.DueAlarms(context.Background(), until)
	if err != nil {
		t.Fatal(err)
	}
	var mine []patio.AlarmRef
	for _, g := range got {
		if g.TeamID == team {
			mine = append(mine, g)
		}
	}
	return mine
}

// dueAlarms returns the team's alarms due by until once the (eventually consistent) index shows
// any.
func dueAlarms(t *testing.T, s *dynamostore.Store, team string, until time.Time) []patio.AlarmRef {
	t.Helper()
	var mine []patio.AlarmRef
	for range 50 {
		if mine = readDue(t, s, team, until); len(mine) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return mine
}

// An alarm indexed under its UTC day, as by_alarm's first format had it, is not read by a tick
// until the backfill moves it; the move changes no record, and a second run finds nothing.
func TestBackfillMovesDayIndexedAlarms(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewActivities(s.Activities())
	a, err := svc.Create(ctx, team, patio.ActivityInput{Type: patio.Some("call"), Title: patio.Some("Ligar"),
		DueAt: patio.Some(patio.NewTimestamp(time.Now().Add(3 * time.Hour)))})
	if err != nil {
		t.Fatal(err)
	}
	dynamostore.IndexAlarmUnderDay(t, s, team, a.ID)
	until := time.Now().Add(5 * time.Hour)
	time.Sleep(200 * time.Millisecond) // let the index drop the entry it had
	if got := readDue(t, s, team, until); len(got) != 0 {
		t.Fatalf("DueAlarms of a day-indexed alarm = %+v; want none before the backfill", got)
	}
	reports, err := s.Backfill(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, r := range reports {
		moved += r.Moved
	}
	if moved < 1 {
		t.Errorf("Backfill = %+v; want the alarm moved", reports)
	}
	if got := dueAlarms(t, s, team, until); len(got) != 1 || got[0].ID != a.ID || got[0].Type != patio.AlarmDueSoon {
		t.Errorf("after the backfill, DueAlarms = %+v; want the activity's due soon", got)
	}
	after, err := svc.Get(ctx, team, a.ID)
	if err != nil || after.Revision != a.Revision || after.UpdatedAt != a.UpdatedAt {
		t.Errorf("after the backfill: %+v, %v; want revision and updated_at unchanged", after, err)
	}
	again, err := s.Backfill(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Moved != 0 {
			t.Errorf("second backfill = %+v; want nothing moved", again)
		}
	}
}
