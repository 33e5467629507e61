package app_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// testTimerPeriod is the shortened tick of these tests (TIMER_PERIOD on the local stack).
const testTimerPeriod = time.Second

// startTimer runs the timer of activities and financial records as the local stack's ticker does
// (localaws.RunTimer), built by app.NewTimer with the shortened period, until the test ends. shift,
// when not zero, moves the timer's clock (patio.Timer.Now) that far from the real one, so that an
// instant hours away (a team's midnight) comes within the test.
func startTimer(t *testing.T, p *pipeline, shift time.Duration) {
	t.Helper()
	timer, err := app.NewTimer(p.awsCfg, p.cfg, testTimerPeriod)
	if err != nil {
		t.Fatal(err)
	}
	if shift != 0 {
		timer.Now = func() time.Time { return time.Now().Add(shift) }
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { localaws.RunTimer(ctx, testTimerPeriod, timer.Tick, p.logger) })
	t.Cleanup(func() { stop(); wg.Wait() })
}

// timedHook registers a webhook of team to r for every event, created now: a due soon fired at
// once (an activity created less than 24 h before its due_at) carries its scheduled instant,
// due_at − 24 h, as created_at, yet reaches a webhook created before the firing.
func (p *pipeline) timedHook(t *testing.T, team patio.Team, r *receiver) {
	t.Helper()
	p.hook(t, team, r, "*")
}

// objectEvents returns the events r received about the record id, by type.
func objectEvents(r *receiver, id string) map[string][]received {
	out := map[string][]received{}
	for _, g := range r.snapshot() {
		data, _ := g.event["data"].(map[string]any)
		obj, _ := data["object"].(map[string]any)
		if obj["id"] == id {
			typ, _ := g.event["type"].(string)
			out[typ] = append(out[typ], g)
		}
	}
	return out
}

// createdAts returns the created_at of each event.
func createdAts(evs []received) []string {
	var out []string
	for _, e := range evs {
		s, _ := e.event["created_at"].(string)
		out = append(out, s)
	}
	return out
}

// object returns an event's data.object decoded into v.
func object[T any](t *testing.T, e received) T {
	t.Helper()
	var ev struct {
		Data struct {
			Object T `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(e.body, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Data.Object
}

// settle lets a few more ticks and deliveries pass, so that an event fired twice, or fired when it
// should not have been, has had the time to arrive.
func settle() { time.Sleep(5 * testTimerPeriod) }

func activityIn(title string, due time.Time) patio.ActivityInput {
	return patio.ActivityInput{Type: patio.Some("call"), Title: patio.Some(title), DueAt: patio.Some(patio.NewTimestamp(due))}
}

func financialIn(due patio.Date) patio.FinancialInput {
	return patio.FinancialInput{Type: patio.Some("revenue"), Category: patio.Some("venda-veiculo"),
		Description: patio.Some("Entrada do Corolla"), Amount: patio.Some(money.Cents(1234567)), DueDate: patio.Some(due)}
}

// TestTimedActivityDueSoonAndOverdue: an activity due in a few seconds, with the shortened ticker
// running, reaches an HTTPS receiver as activity.due_soon (at once: it was created less than 24 h
// before due_at) then activity.overdue, signed, each once, each with its scheduled instant as
// created_at; firing changes neither the activity's revision nor its updated_at.
func TestTimedActivityDueSoonAndOverdue(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, always(200))
	p.timedHook(t, team, recv)
	activities := patio.NewActivities(p.store.Activities())
	startTimer(t, p, 0)

	due := time.Now().Add(5 * time.Second)
	a := check[patio.Activity](t)(activities.Create(ctx, team.ID, activityIn("Ligar para a Ana", due)))
	waitFor(t, "activity.due_soon then activity.overdue", 60*time.Second, func() bool {
		evs := objectEvents(recv, a.ID)
		return len(evs[webhook.ActivityDueSoon]) > 0 && len(evs[webhook.ActivityOverdue]) > 0
	})
	settle()
	evs := objectEvents(recv, a.ID)
	dueTS := patio.NewTimestamp(due)
	for _, tt := range []struct {
		typ, createdAt string
	}{
		{webhook.ActivityCreated, a.CreatedAt.String()},
		{webhook.ActivityDueSoon, patio.NewTimestamp(dueTS.Time().Add(-24 * time.Hour)).String()},
		{webhook.ActivityOverdue, dueTS.String()},
	} {
		got := createdAts(evs[tt.typ])
		if len(got) != 1 || got[0] != tt.createdAt {
			t.Errorf("%s created_at = %v; want once, %s", tt.typ, got, tt.createdAt)
		}
	}
	if len(evs) != 3 {
		t.Errorf("event types about the activity = %d (%v); want created, due_soon and overdue only", len(evs), evs)
	}
	overdue := evs[webhook.ActivityOverdue]
	if len(overdue) == 1 && overdue[0].at.Before(dueTS.Time()) {
		t.Errorf("activity.overdue arrived at %s; want not before due_at %s", overdue[0].at, dueTS)
	}
	for _, typ := range []string{webhook.ActivityDueSoon, webhook.ActivityOverdue} {
		for _, e := range evs[typ] {
			o := object[patio.Activity](t, e)
			if o.Revision != a.Revision || o.UpdatedAt != a.UpdatedAt || o.Status != patio.ActivityPending {
				t.Errorf("%s data.object: revision %d, updated_at %s, status %s; want %d, %s, pending (as created)",
					typ, o.Revision, o.UpdatedAt, o.Status, a.Revision, a.UpdatedAt)
			}
		}
	}
	got := check[patio.Activity](t)(activities.Get(ctx, team.ID, a.ID))
	if got.Revision != a.Revision || got.UpdatedAt != a.UpdatedAt {
		t.Errorf("after firing: revision %d, updated_at %s; want %d, %s (unchanged)", got.Revision, got.UpdatedAt, a.Revision, a.UpdatedAt)
	}
}

// TestTimedNothingOnceDone: an activity completed and a financial record paid before their due
// time fire no timed event, while an open activity and a pending record of the same team, due
// later and at the same time, do (their events show that the timer went past those due times).
func TestTimedNothingOnceDone(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, always(200))
	p.timedHook(t, team, recv)
	activities := patio.NewActivities(p.store.Activities())
	financial := patio.NewFinancial(p.store.Financial(), accountdb.NewAccounts(p.store.DB()).Team)

	t.Run("activity completed", func(t *testing.T) {
		now := time.Now()
		done := check[patio.Activity](t)(activities.Create(ctx, team.ID, activityIn("Concluída antes", now.Add(3*time.Second))))
		check[patio.Activity](t)(activities.Update(ctx, team.ID, done.ID, patio.ActivityInput{Status: patio.Some(string(patio.ActivityCompleted))}))
		open := check[patio.Activity](t)(activities.Create(ctx, team.ID, activityIn("Aberta", now.Add(5*time.Second))))
		// The timer starts once the first activity is completed: before, its due soon (at once,
		// due_at being less than 24 h away) was the timer's to fire.
		startTimer(t, p, 0)
		waitFor(t, "the open activity's activity.overdue", 60*time.Second, func() bool {
			return len(objectEvents(recv, open.ID)[webhook.ActivityOverdue]) > 0
		})
		settle()
		evs := objectEvents(recv, done.ID)
		for _, typ := range []string{webhook.ActivityDueSoon, webhook.ActivityOverdue} {
			if n := len(evs[typ]); n != 0 {
				t.Errorf("completed activity: %d %s; want none", n, typ)
			}
		}
		if len(evs[webhook.ActivityCompleted]) != 1 {
			t.Errorf("completed activity: %d activity.completed; want 1", len(evs[webhook.ActivityCompleted]))
		}
	})

	t.Run("financial record paid", func(t *testing.T) {
		tm := check[patio.Team](t)(accountdb.NewAccounts(p.store.DB()).Team(ctx, team.ID))
		loc, err := patio.CheckTimeZone(tm.TimeZone)
		if err != nil {
			t.Fatal(err)
		}
		// Due in ten days: the timer's clock is moved to a few seconds before that midnight.
		d := time.Now().In(loc).AddDate(0, 0, 10)
		due := patio.Date{Year: d.Year(), Month: d.Month(), Day: d.Day()}
		paid := check[patio.FinancialRecord](t)(financial.Create(ctx, team.ID, financialIn(due)))
		check[patio.FinancialRecord](t)(financial.Update(ctx, team.ID, paid.ID, patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid))}))
		pending := check[patio.FinancialRecord](t)(financial.Create(ctx, team.ID, financialIn(due)))
		startTimer(t, p, time.Until(time.Date(due.Year, due.Month, due.Day+1, 0, 0, 0, 0, loc))-3*time.Second)
		waitFor(t, "the pending record's financial.overdue", 60*time.Second, func() bool {
			return len(objectEvents(recv, pending.ID)[webhook.FinancialOverdue]) > 0
		})
		settle()
		evs := objectEvents(recv, paid.ID)
		if n := len(evs[webhook.FinancialOverdue]); n != 0 {
			t.Errorf("paid record: %d financial.overdue; want none", n)
		}
		if len(evs[webhook.FinancialPaid]) != 1 {
			t.Errorf("paid record: %d financial.paid; want 1", len(evs[webhook.FinancialPaid]))
		}
	})
}

// TestTimedDueAtMovedRearms: once an activity's due soon has fired, moving its due_at later arms
// both timed events again: a second activity.due_soon and an activity.overdue for the new value,
// each once, and none for the old value's overdue.
func TestTimedDueAtMovedRearms(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, always(200))
	p.timedHook(t, team, recv)
	activities := patio.NewActivities(p.store.Activities())
	startTimer(t, p, 0)

	oldDue := time.Now().Add(12 * time.Second)
	a := check[patio.Activity](t)(activities.Create(ctx, team.ID, activityIn("Test-drive", oldDue)))
	waitFor(t, "the due soon fired for the first due_at", 30*time.Second, func() bool {
		cur := check[patio.Activity](t)(activities.Get(ctx, team.ID, a.ID))
		return cur.DueSoonFired != nil
	})
	if !time.Now().Before(oldDue) {
		t.Fatalf("the due soon fired after the first due_at passed; the test needs it before (give it more time)")
	}
	newDue := oldDue.Add(8 * time.Second)
	moved := check[patio.Activity](t)(activities.Update(ctx, team.ID, a.ID, patio.ActivityInput{DueAt: patio.Some(patio.NewTimestamp(newDue))}))
	waitFor(t, "activity.overdue for the new due_at", 60*time.Second, func() bool {
		return len(objectEvents(recv, a.ID)[webhook.ActivityOverdue]) > 0
	})
	settle()
	evs := objectEvents(recv, a.ID)
	oldTS, newTS := patio.NewTimestamp(oldDue), patio.NewTimestamp(newDue)
	wantSoon := []string{patio.NewTimestamp(oldTS.Time().Add(-24 * time.Hour)).String(), patio.NewTimestamp(newTS.Time().Add(-24 * time.Hour)).String()}
	if got := createdAts(evs[webhook.ActivityDueSoon]); len(got) != 2 || got[0] != wantSoon[0] || got[1] != wantSoon[1] {
		t.Errorf("activity.due_soon created_at = %v; want %v (one per due_at value)", got, wantSoon)
	}
	if got := createdAts(evs[webhook.ActivityOverdue]); len(got) != 1 || got[0] != newTS.String() {
		t.Errorf("activity.overdue created_at = %v; want once, %s (the new due_at only)", got, newTS)
	}
	got := check[patio.Activity](t)(activities.Get(ctx, team.ID, a.ID))
	if got.Revision != moved.Revision || got.UpdatedAt != moved.UpdatedAt {
		t.Errorf("after firing: revision %d, updated_at %s; want %d, %s (as moved)", got.Revision, got.UpdatedAt, moved.Revision, moved.UpdatedAt)
	}
}

// TestTimedFinancialOverdueAtLocalMidnight: two teams, one in America/Sao_Paulo and one in
// Asia/Tokyo, each with a pending record due the same date. financial.overdue fires at the start
// of the next day in each team's own zone: Tokyo's twelve hours before São Paulo's. The timer's
// clock is moved to a few seconds before each midnight in turn (patio.Timer.Now), so the test
// does not wait for hours.
func TestTimedFinancialOverdueAtLocalMidnight(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	financial := patio.NewFinancial(p.store.Financial(), accountdb.NewAccounts(p.store.DB()).Team)
	zones := []string{"Asia/Tokyo", "America/Sao_Paulo"}
	d := time.Now().UTC().AddDate(0, 0, 20)
	due := patio.Date{Year: d.Year(), Month: d.Month(), Day: d.Day()}
	recvs := make([]*receiver, len(zones))
	records := make([]patio.FinancialRecord, len(zones))
	midnights := make([]time.Time, len(zones))
	for i, zone := range zones {
		team := p.team(t)
		check[patio.Team](t)(accountdb.NewAccounts(p.store.DB()).SetTimeZone(ctx, team.ID, zone))
		recvs[i] = newReceiver(t, always(200))
		p.timedHook(t, team, recvs[i])
		records[i] = check[patio.FinancialRecord](t)(financial.Create(ctx, team.ID, financialIn(due)))
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		midnights[i] = time.Date(due.Year, due.Month, due.Day+1, 0, 0, 0, 0, loc)
	}
	overdue := func(i int) []received { return objectEvents(recvs[i], records[i].ID)[webhook.FinancialOverdue] }

	for i, zone := range zones {
		t.Run(zone, func(t *testing.T) {
			shift := time.Until(midnights[i]) - 3*time.Second
			startTimer(t, p, shift)
			waitFor(t, zone+"'s financial.overdue", 60*time.Second, func() bool { return len(overdue(i)) > 0 })
			settle()
			got := overdue(i)
			if at := createdAts(got); len(at) != 1 || at[0] != patio.NewTimestamp(midnights[i]).String() {
				t.Errorf("%s: financial.overdue created_at = %v; want once, %s (midnight there)", zone, at, patio.NewTimestamp(midnights[i]))
			}
			if len(got) == 1 && got[0].at.Add(shift).Before(midnights[i]) {
				t.Errorf("%s: financial.overdue arrived at %s by the timer's clock; want not before midnight there, %s",
					zone, got[0].at.Add(shift), midnights[i])
			}
			for j := i + 1; j < len(zones); j++ {
				if n := len(overdue(j)); n != 0 {
					t.Errorf("at %s's midnight, %s's record fired %d financial.overdue; want none before its own midnight", zone, zones[j], n)
				}
			}
			o := object[patio.FinancialRecord](t, got[0])
			if o.Revision != records[i].Revision || o.UpdatedAt != records[i].UpdatedAt {
				t.Errorf("%s: data.object revision %d, updated_at %s; want %d, %s (as created)", zone, o.Revision, o.UpdatedAt,
					records[i].Revision, records[i].UpdatedAt)
			}
		})
	}
}
