package dynamostore_test

import (
	"context"
	"sync"
	"testing"
	"time"

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
	window := func() []patio.AlarmRef {
		t.Helper()
		var mine []patio.AlarmRef
		for range 50 { // the index is eventually consistent
			got, err := s.DueAlarms(ctx, now.Add(-time.Hour), now.Add(5*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			mine = mine[:0]
			for _, g := range got {
				if g.TeamID == team {
					mine = append(mine, g)
				}
			}
			if len(mine) > 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		return mine
	}
	alarms := window()
	if len(alarms) != 1 || alarms[0].Type != patio.AlarmDueSoon || alarms[0].ID != a.ID {
		t.Fatalf("DueAlarms = %+v; want the activity's due soon", alarms)
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
	if _, err := svc.Update(ctx, team, a.ID, patio.ActivityInput{Status: patio.Some(patio.ActivityCompleted)}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.FireAlarm(ctx, next[0], time.Now()); ok {
		t.Errorf("FireAlarm of a completed activity = true; want nothing fired")
	}
	reopened, err := svc.Update(ctx, team, a.ID, patio.ActivityInput{Status: patio.Some(patio.ActivityPending),
		DueAt: patio.Some(patio.NewTimestamp(now.Add(4 * time.Hour)))})
	if err != nil {
		t.Fatal(err)
	}
	if alarm, ok := reopened.NextAlarm(); !ok || alarm.Type != patio.AlarmDueSoon {
		t.Errorf("moved due_at: next alarm = %+v %v; want due soon armed again", alarm, ok)
	}
}
