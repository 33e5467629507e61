package webhook

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/patio"
)

// Activities and financial records fire only their seven types: created, their status events, and
// the timed events the timer marks (at their scheduled instants), never *.updated.
func TestDeriveModules(t *testing.T) {
	at := func(s string) patio.Timestamp { ts, _ := patio.ParseTimestamp(s); return ts }
	due := at("2026-03-15T18:00:00Z")
	act := patio.Activity{ID: "a1", Type: "call", Title: "Ligar", Status: patio.ActivityPending, DueAt: &due,
		CreatedAt: at("2026-03-10T12:00:00Z"), UpdatedAt: at("2026-03-10T12:00:00Z"), Revision: 1}
	with := func(a patio.Activity, f func(*patio.Activity)) patio.Activity { f(&a); return a }
	fin := patio.FinancialRecord{ID: "f1", Type: "expense", Category: "aluguel", Description: "Aluguel", Amount: 100,
		DueDate: patio.Date{Year: 2026, Month: 3, Day: 15}, Status: patio.FinancialPending, Zone: "Asia/Tokyo",
		CreatedAt: at("2026-03-10T12:00:00Z"), UpdatedAt: at("2026-03-10T12:00:00Z"), Revision: 1}
	finWith := func(f patio.FinancialRecord, g func(*patio.FinancialRecord)) patio.FinancialRecord { g(&f); return f }
	tests := []struct {
		name     string
		resource string
		old, new any
		want     []string
		at       string // created_at of the last event
	}{
		{"activity created", ResourceActivity, nil, act, []string{ActivityCreated}, "2026-03-10T12:00:00Z"},
		{"activity edited", ResourceActivity, act, with(act, func(a *patio.Activity) { a.Title = "X"; a.Revision = 2 }), nil, ""},
		{"activity completed", ResourceActivity, act, with(act, func(a *patio.Activity) {
			a.Status = patio.ActivityCompleted
			a.Revision = 2
			a.UpdatedAt = at("2026-03-11T09:00:00Z")
		}), []string{ActivityCompleted}, "2026-03-11T09:00:00Z"},
		{"due soon fired", ResourceActivity, act, with(act, func(a *patio.Activity) { a.DueSoonFired = a.DueAt }),
			[]string{ActivityDueSoon}, "2026-03-14T18:00:00Z"},
		{"overdue fired", ResourceActivity, with(act, func(a *patio.Activity) { a.DueSoonFired = a.DueAt }),
			with(act, func(a *patio.Activity) { a.DueSoonFired, a.OverdueFired = a.DueAt, a.DueAt }),
			[]string{ActivityOverdue}, "2026-03-15T18:00:00Z"},
		{"due soon skipped by a write", ResourceActivity, act, with(act, func(a *patio.Activity) {
			a.DueSoonFired = a.DueAt
			a.Revision = 2
		}), nil, ""},
		{"financial created", ResourceFinancial, nil, fin, []string{FinancialCreated}, "2026-03-10T12:00:00Z"},
		{"financial paid", ResourceFinancial, fin, finWith(fin, func(f *patio.FinancialRecord) {
			f.Status = patio.FinancialPaid
			f.Revision = 2
		}), []string{FinancialPaid}, "2026-03-10T12:00:00Z"},
		{"financial overdue at Tokyo's midnight", ResourceFinancial, fin, finWith(fin, func(f *patio.FinancialRecord) {
			f.OverdueFired = &f.DueDate
		}), []string{FinancialOverdue}, "2026-03-15T15:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := Derive(Change{SourceID: "r", Resource: tt.resource, TeamID: "team", Old: tt.old, New: tt.new,
				At: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if got := types(evs); !slices.Equal(got, tt.want) {
				t.Fatalf("Derive types = %v; want %v", got, tt.want)
			}
			if len(evs) > 0 && evs[len(evs)-1].CreatedAt.String() != tt.at {
				t.Errorf("created_at = %s; want %s", evs[len(evs)-1].CreatedAt, tt.at)
			}
		})
	}
}

// A timed event keeps its scheduled instant as created_at, but it is received by the webhooks that
// existed when the timer fired it: an activity created 3 h before its due_at, after a webhook was
// created, gets its due soon (scheduled 21 h earlier) at that webhook; one created after the firing
// does not.
func TestTimedEventReceivedByWebhooksOfItsFiring(t *testing.T) {
	created := time.Date(2026, 3, 15, 15, 0, 0, 0, time.UTC)
	due := patio.NewTimestamp(created.Add(3 * time.Hour))
	act := patio.Activity{ID: "a1", Type: "call", Title: "Ligar", Status: patio.ActivityPending, DueAt: &due,
		CreatedAt: patio.NewTimestamp(created), UpdatedAt: patio.NewTimestamp(created), Revision: 1}
	firedAt := created.Add(20 * time.Second)
	fired := act.Fired(patio.AlarmDueSoon, firedAt)
	// The stream's approximate time is no help: DynamoDB Local rounds it down to the minute.
	stream := firedAt.Truncate(time.Minute).Add(-time.Minute)
	evs, err := Derive(Change{SourceID: "r", Resource: ResourceActivity, TeamID: "team", Old: act, New: fired, At: stream})
	if err != nil || len(evs) != 1 || evs[0].Type != ActivityDueSoon {
		t.Fatalf("Derive = %v, %v; want one due soon", evs, err)
	}
	if got := evs[0].CreatedAt.Time(); !got.Equal(due.Time().Add(-24 * time.Hour)) {
		t.Errorf("created_at = %s; want the scheduled instant, due_at - 24 h", got)
	}
	hook := func(at time.Time) Webhook {
		return Webhook{Events: []string{AllEvents}, CreatedAt: patio.NewTimestamp(at)}
	}
	if !hook(created.Add(-time.Minute)).Receives(evs[0]) {
		t.Error("a webhook created before the activity did not receive its due soon")
	}
	if hook(firedAt.Add(time.Minute)).Receives(evs[0]) {
		t.Error("a webhook created after the firing received it")
	}
}

// hookCreatedAt is a webhook of every event created at the instant t (its id a UUIDv7 of t, to
// the millisecond, as New makes it).
func hookCreatedAt(t time.Time) Webhook {
	var id uuid.UUID
	binary.BigEndian.PutUint64(id[:8], uint64(t.UnixMilli())<<16|0x7000) // 48-bit ms, version 7
	id[8] = 0x80                                                         // the RFC 9562 variant
	return Webhook{ID: id.String(), Events: []string{AllEvents}, CreatedAt: patio.NewTimestamp(t)}
}

// vehicleCreated derives the event of a vehicle created at its record's time at, its row written
// at written (zero: the row does not say).
func vehicleCreated(t *testing.T, at patio.Timestamp, written time.Time) Event {
	t.Helper()
	v := patio.Vehicle{ID: "v1", Brand: "Fiat", Model: "Uno", Status: patio.VehicleActive, CreatedAt: at, UpdatedAt: at, Revision: 1}
	evs, err := Derive(Change{SourceID: "r", Resource: ResourceVehicle, TeamID: "team", New: v, At: at.Time(), Written: written})
	if err != nil || len(evs) != 1 {
		t.Fatalf("Derive = %v, %v; want vehicle.created", evs, err)
	}
	return evs[0]
}

// A webhook receives the changes written at or after its creation to the millisecond: a vehicle
// created earlier in the same second (both created_at read the same) is not received, one written
// at or after it is, and a change whose row does not say when it was written counts as made at
// its record's second. New's webhook knows its creation to the millisecond.
func TestReceivesWithinTheSecondOfItsCreation(t *testing.T) {
	created := time.Date(2026, 3, 15, 15, 0, 0, 500_000_000, time.UTC)
	w := hookCreatedAt(created)
	if got := w.Created(); !got.Equal(created) {
		t.Fatalf("Created() = %s; want %s, the instant its id holds", got, created)
	}
	second := patio.NewTimestamp(created)
	for _, tc := range []struct {
		written time.Time
		want    bool
	}{
		{created.Add(-time.Millisecond), false},
		{time.Time{}, false}, // its second's start
		{created, true},
		{created.Add(time.Millisecond), true},
	} {
		if got := w.Receives(vehicleCreated(t, second, tc.written)); got != tc.want {
			t.Errorf("a change of %s written at %v: received %t; want %t (the webhook created at %s)", second, tc.written, got, tc.want, created)
		}
	}
	made, err := New("team", "https://example.com/hooks", []string{AllEvents}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := patio.IDTime(made.ID); !ok || !made.Created().Equal(got) {
		t.Errorf("New's webhook: Created() = %s; want its id's instant %s", made.Created(), got)
	}
}

// A change whose write ended in the second after its record's time (the domain sets updated_at
// before the write; a loaded engine takes a while) counts as made when it was written: a webhook
// created between the two receives it, and the event keeps the record's own time as created_at.
func TestReceivesAWriteThatEndedInTheNextSecond(t *testing.T) {
	created := time.Date(2026, 3, 15, 15, 0, 1, 1_000_000, time.UTC)
	at := patio.NewTimestamp(created.Add(-time.Second)) // the record's second, before the webhook's
	e := vehicleCreated(t, at, created.Add(time.Millisecond))
	if !hookCreatedAt(created).Receives(e) {
		t.Errorf("a change written at %s, after the webhook's creation at %s, its record's time %s, was not received", created.Add(time.Millisecond), created, at)
	}
	if e.CreatedAt != at {
		t.Errorf("created_at = %s; want the record's own time %s", e.CreatedAt, at)
	}
}
