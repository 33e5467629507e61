package delivery_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// vehicleChange is a vehicle's creation in team at at, as the stream record src carries it.
func vehicleChange(src, team string, at time.Time) webhook.Change {
	ts := patio.NewTimestamp(at)
	return webhook.Change{SourceID: src, Resource: webhook.ResourceVehicle, TeamID: team, At: at,
		New: patio.Vehicle{ID: "veh_" + src, TeamID: team, Title: "Toyota Corolla", Brand: "Toyota", Model: "Corolla",
			Price: money.Cents(11999050), Phase: "preparacao", Status: patio.VehicleActive, CreatedAt: ts, UpdatedAt: ts}}
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name   string
		before func(e *env, d webhook.Delivery) // a delivery to wh_all already stored
		times  int                              // dispatches of the change
		// want lists the webhooks whose first attempt is queued, in order, and whether as a copy.
		want []string
	}{
		{name: "first dispatch", times: 1, want: []string{"wh_all", "wh_typed"}},
		// A delivery found before its first attempt may have lost its message: it is queued again,
		// as a copy (the deliverer claims a copy's attempt, so the two messages make one attempt).
		{name: "dispatched again", times: 2, want: []string{"wh_all", "wh_all copy", "wh_typed", "wh_typed copy"}},
		{name: "again after the delivery was stored", times: 1,
			before: func(e *env, d webhook.Delivery) { e.put(d) }, want: []string{"wh_all copy", "wh_typed"}},
		{name: "again after the first attempt", times: 1,
			before: func(e *env, d webhook.Delivery) { d.Attempt = 1; e.put(d) }, want: []string{"wh_typed"}},
		{name: "again after a replay", times: 1,
			before: func(e *env, d webhook.Delivery) { d.Series = 1; e.put(d) }, want: []string{"wh_typed"}},
		{name: "again after the delivery succeeded", times: 1,
			before: func(e *env, d webhook.Delivery) { d.Status = webhook.DeliverySucceeded; e.put(d) }, want: []string{"wh_typed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			// The env's own webhook is deleted: it receives nothing.
			if _, err := e.store.UpdateWebhook(context.Background(), e.team.ID, e.hook.ID, func(w webhook.Webhook) (webhook.Webhook, error) {
				w.Status = webhook.StatusDeleted
				return w, nil
			}); err != nil {
				t.Fatal(err)
			}
			hooks := map[string]webhook.Webhook{}
			for name, f := range map[string]func(*webhook.Webhook){
				"wh_all":   func(*webhook.Webhook) {},
				"wh_typed": func(w *webhook.Webhook) { w.Events = []string{webhook.VehicleUpdated, webhook.VehicleCreated} },
				"wh_deals": func(w *webhook.Webhook) { w.Events = []string{webhook.DealCreated} },
				"wh_off":   func(w *webhook.Webhook) { w.Status = webhook.StatusDisabled },
				// Created a second after the change: it never receives it, however often it is
				// dispatched.
				"wh_later": func(w *webhook.Webhook) { w.CreatedAt = patio.NewTimestamp(first.Add(time.Second)) },
			} {
				hooks[name] = e.newHook(name, f)
			}
			stranger := newEnv(t).hook // another team's
			change := vehicleChange("rec-"+e.prefix, e.team.ID, first)
			eventID := webhook.EventID(change.SourceID, webhook.VehicleCreated)
			id := func(name string) string { return webhook.DeliveryID(eventID, hooks[name].ID) }
			if tt.before != nil {
				tt.before(e, webhook.Delivery{ID: id("wh_all"), WebhookID: hooks["wh_all"].ID, TeamID: e.team.ID, EventID: eventID,
					EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending, Payload: []byte(`{}`), CreatedAt: now, UpdatedAt: now})
			}
			d := &delivery.Dispatcher{Store: e.store, Queue: e.queue, Now: func() time.Time { return now }, Logger: discard}
			for range tt.times {
				if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 1 || err != nil {
					t.Fatalf("Dispatch(%s) = %d, %v; want 1, nil", change.SourceID, n, err)
				}
			}
			var got []string
			for _, task := range e.queue.queued() {
				name := strings.TrimPrefix(task.WebhookID, e.team.ID+"_")
				if task.Copy {
					name += " copy"
				}
				if task.DeliveryID != id(strings.TrimSuffix(name, " copy")) || task.Attempt != 1 || !task.Due.Equal(now) {
					t.Errorf("Dispatch queued %+v; want the first attempt of its delivery, due now", task)
				}
				got = append(got, name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Dispatch(%s) %d times queued %v; want %v", change.SourceID, tt.times, got, tt.want)
			}
			for name, want := range map[string]string{"wh_typed": webhook.DeliveryPending, "wh_off": webhook.DeliverySkipped,
				"wh_deals": "", "wh_later": ""} {
				got, err := e.store.Delivery(context.Background(), id(name))
				if err != nil && !patio.IsKind(err, patio.KindNotFound) {
					t.Fatal(err)
				}
				if got.Status != want {
					t.Errorf("Dispatch(%s) left the delivery to %s %q; want %q", change.SourceID, name, got.Status, want)
				}
			}
			if _, err := e.store.Delivery(context.Background(), webhook.DeliveryID(eventID, stranger.ID)); !patio.IsKind(err, patio.KindNotFound) {
				t.Errorf("another team's webhook got a delivery of the change: %v", err)
			}
			if got, _ := e.store.Delivery(context.Background(), id("wh_off")); got.EventID != eventID || len(got.Payload) == 0 {
				t.Errorf("Dispatch(%s) stored the skipped delivery %+v; want event %s, its payload", change.SourceID, got, eventID)
			}
		})
	}
}

// A dispatch interrupted before its task reached the queue queues it when the change comes again.
func TestDispatchAgainAfterQueueError(t *testing.T) {
	e := newEnv(t)
	e.queue.err = errBoom
	d := &delivery.Dispatcher{Store: e.store, Queue: e.queue, Now: func() time.Time { return now }, Logger: discard}
	change := webhook.Change{SourceID: "rec-" + e.prefix, Resource: webhook.ResourceClient, TeamID: e.team.ID, At: first,
		New: patio.Client{ID: "cli_1", Type: patio.ClientIndividual, Name: "Ana", Status: patio.ClientActive}}

	if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 0 || !errors.Is(err, errBoom) {
		t.Fatalf("Dispatch(%s) = %d, %v; want 0, %v", change.SourceID, n, err, errBoom)
	}
	e.queue.err = nil
	if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 1 || err != nil {
		t.Fatalf("Dispatch(%s) again = %d, %v; want 1, nil", change.SourceID, n, err)
	}
	eventID := webhook.EventID(change.SourceID, webhook.ClientCreated)
	want := []webhook.Task{{DeliveryID: webhook.DeliveryID(eventID, e.hook.ID), TeamID: e.team.ID, WebhookID: e.hook.ID,
		EventID: eventID, Attempt: 1, Due: now, Copy: true}}
	if got := e.queue.queued(); !slices.Equal(got, want) {
		t.Errorf("Dispatch(%s) twice queued %v; want %v", change.SourceID, got, want)
	}
}

// countingStore counts TeamWebhooks calls.
type countingStore struct {
	*store
	mu    sync.Mutex
	reads int
}

func (c *countingStore) TeamWebhooks(ctx context.Context, teamID string) ([]webhook.Webhook, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.store.TeamWebhooks(ctx, teamID)
}

// TestDispatchBatch: a batch's changes are dispatched together, each team's webhooks read once per
// batch, and again in a later batch only for changes newer than the list it has (so a webhook
// created since never misses a change made after its creation).
func TestDispatchBatch(t *testing.T) {
	e, other := newEnv(t), newEnv(t)
	s := &countingStore{store: e.store}
	clock := now
	d := &delivery.Dispatcher{Store: s, Queue: e.queue, Now: func() time.Time { return clock }, Logger: discard}
	old := now.Add(-time.Minute)
	src := func(name string) string { return name + "-" + e.prefix }
	batch := []webhook.Change{vehicleChange(src("a"), e.team.ID, old), vehicleChange(src("b"), other.team.ID, old),
		vehicleChange(src("c"), e.team.ID, old)}
	if n, err := d.Dispatch(context.Background(), batch); n != 3 || err != nil {
		t.Fatalf("Dispatch = %d, %v; want 3, nil", n, err)
	}
	if s.reads != 2 {
		t.Errorf("a batch of two teams read webhook lists %d times; want 2", s.reads)
	}
	if n := len(e.queue.queued()); n != 3 {
		t.Errorf("Dispatch queued %d tasks; want 3", n)
	}

	// Old changes again, a second later: the lists read before serve them.
	clock = now.Add(time.Second)
	if _, err := d.Dispatch(context.Background(), []webhook.Change{vehicleChange(src("d"), e.team.ID, old)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 2 {
		t.Errorf("a change older than the cached list read the list again (%d reads); want 2", s.reads)
	}
	// A change as new as the list is dispatched with a fresh one: a webhook created meanwhile gets it.
	late := e.newHook("wh_late", func(w *webhook.Webhook) { w.CreatedAt = patio.NewTimestamp(now) })
	if _, err := d.Dispatch(context.Background(), []webhook.Change{vehicleChange(src("e"), e.team.ID, now)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 3 {
		t.Errorf("a change newer than the cached list used it (%d reads); want 3", s.reads)
	}
	id := webhook.DeliveryID(webhook.EventID(src("e"), webhook.VehicleCreated), late.ID)
	if got, err := e.store.Delivery(context.Background(), id); err != nil || got.Status != webhook.DeliveryPending {
		t.Errorf("the webhook created before the change has delivery %+v, %v; want it pending", got, err)
	}
	// After CacheFor, even old changes read the list again.
	clock = now.Add(time.Minute)
	if _, err := d.Dispatch(context.Background(), []webhook.Change{vehicleChange(src("f"), e.team.ID, old)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 4 {
		t.Errorf("a list older than CacheFor was used (%d reads); want 4", s.reads)
	}

	// A failure to store deliveries reports the change they came from.
	e.store.failOnce("CreateDeliveries", 0, errBoom)
	batch = []webhook.Change{vehicleChange(src("g"), e.team.ID, old), vehicleChange(src("h"), e.team.ID, old)}
	if n, err := d.Dispatch(context.Background(), batch); n != 0 || err == nil {
		t.Errorf("Dispatch with the store failing = %d, %v; want 0 and the error", n, err)
	}
}

// auditor records the audit entries a Dispatcher writes, or fails with err.
type auditor struct {
	mu      sync.Mutex
	entries []patio.AuditEntry
	err     error
}

func (a *auditor) RecordAudits(_ context.Context, es []patio.AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	a.entries = append(a.entries, es...)
	return nil
}

// TestDispatchAuditsTheAPIsChanges: a change an API key made (By) gets its audit entry, named as
// the use cases name it, with an id that a redispatch repeats; a change of the console gets none;
// when the entry cannot be written, nothing of the batch is queued and the change is handed back.
func TestDispatchAuditsTheAPIsChanges(t *testing.T) {
	e := newEnv(t)
	a := &auditor{err: errBoom}
	d := &delivery.Dispatcher{Store: e.store, Queue: e.queue, Audit: a, Now: func() time.Time { return now }, Logger: discard}
	console := vehicleChange("rec-c-"+e.prefix, e.team.ID, first)
	api := vehicleChange("rec-a-"+e.prefix, e.team.ID, first)
	api.By = "Marketplace (dk_live_AbCd)"
	batch := []webhook.Change{console, api}

	if n, err := d.Dispatch(context.Background(), batch); n != 1 || !errors.Is(err, errBoom) {
		t.Fatalf("Dispatch with the audit failing = %d, %v; want 1 (the API's change handed back), %v", n, err, errBoom)
	}
	if got := len(e.queue.queued()); got != 0 {
		t.Errorf("%d tasks queued with the audit failing; want none", got)
	}
	a.err = nil
	for range 2 {
		if n, err := d.Dispatch(context.Background(), batch); n != 2 || err != nil {
			t.Fatalf("Dispatch = %d, %v; want 2, nil", n, err)
		}
	}
	if len(a.entries) != 2 || a.entries[0].ID != a.entries[1].ID {
		t.Fatalf("entries = %+v; want the API change's one entry, written twice with one id", a.entries)
	}
	got := a.entries[0]
	if got.Action != "vehicle.create" || got.Target != "vehicle:veh_"+api.SourceID || got.TeamID != e.team.ID ||
		got.Actor != (patio.Actor{Kind: patio.ActorKey, ID: api.By}) || !slices.Contains(got.Fields, "brand") {
		t.Errorf("entry = %+v; want vehicle.create of the API's vehicle by its key, with its fields", got)
	}
}

// TestDispatchWithAKeptList: a change made after the team's list was read is dispatched with the
// list kept, read again in the same round, and its deliveries set right by the list as read again
// before anything is queued: a webhook created, enabled or subscribed since gets the change (it
// was made after their creation), one disabled since gets it skipped, one deleted or no longer
// subscribed gets nothing queued (the delivery made from the kept list cancelled).
func TestDispatchWithAKeptList(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	s := &countingStore{store: e.store}
	clock := now
	d := &delivery.Dispatcher{Store: s, Queue: e.queue, Now: func() time.Time { return clock }, Logger: discard}
	src := func(name string) string { return name + "-" + e.prefix }
	edit := func(w webhook.Webhook, f func(*webhook.Webhook)) {
		if _, err := e.store.UpdateWebhook(ctx, e.team.ID, w.ID, func(w webhook.Webhook) (webhook.Webhook, error) { f(&w); return w, nil }); err != nil {
			t.Fatal(err)
		}
	}
	hooks := map[string]webhook.Webhook{"wh_1": e.hook}
	for _, name := range []string{"wh_off", "wh_gone", "wh_unsub"} {
		hooks[name] = e.newHook(name)
	}
	hooks["wh_on"] = e.newHook("wh_on", func(w *webhook.Webhook) { w.Status = webhook.StatusDisabled })
	if _, err := d.Dispatch(ctx, []webhook.Change{vehicleChange(src("a"), e.team.ID, now)}); err != nil {
		t.Fatal(err)
	}
	before := len(e.queue.queued())

	edit(hooks["wh_off"], func(w *webhook.Webhook) { w.Status = webhook.StatusDisabled })
	edit(hooks["wh_on"], func(w *webhook.Webhook) { w.Status = webhook.StatusActive })
	edit(hooks["wh_gone"], func(w *webhook.Webhook) { w.Status = webhook.StatusDeleted })
	edit(hooks["wh_unsub"], func(w *webhook.Webhook) { w.Events = []string{webhook.DealCreated} })
	hooks["wh_new"] = e.newHook("wh_new", func(w *webhook.Webhook) { w.CreatedAt = patio.NewTimestamp(now.Add(time.Second)) })
	clock = now.Add(2 * time.Second)
	change := vehicleChange(src("b"), e.team.ID, clock)
	if n, err := d.Dispatch(ctx, []webhook.Change{change}); n != 1 || err != nil {
		t.Fatalf("Dispatch(%s) = %d, %v; want 1, nil", change.SourceID, n, err)
	}
	if s.reads != 2 {
		t.Errorf("the two dispatches read the list %d times; want 2 (the second with the kept list)", s.reads)
	}
	var got []string
	for _, task := range e.queue.queued()[before:] {
		if task.Copy || task.Attempt != 1 {
			t.Errorf("Dispatch queued %+v; want a first attempt, no copy", task)
		}
		got = append(got, strings.TrimPrefix(task.WebhookID, e.team.ID+"_"))
	}
	slices.Sort(got)
	if want := []string{"wh_1", "wh_new", "wh_on"}; !slices.Equal(got, want) {
		t.Errorf("Dispatch(%s) queued %v; want %v", change.SourceID, got, want)
	}
	eventID := webhook.EventID(change.SourceID, webhook.VehicleCreated)
	for name, want := range map[string]string{"wh_1": webhook.DeliveryPending, "wh_new": webhook.DeliveryPending,
		"wh_on": webhook.DeliveryPending, "wh_off": webhook.DeliverySkipped, "wh_gone": webhook.DeliveryCancelled,
		"wh_unsub": webhook.DeliveryCancelled} {
		got, err := e.store.Delivery(ctx, webhook.DeliveryID(eventID, hooks[name].ID))
		if err != nil {
			t.Fatalf("the delivery to %s: %v", name, err)
		}
		if got.Status != want {
			t.Errorf("Dispatch(%s) left the delivery to %s %q; want %q", change.SourceID, name, got.Status, want)
		}
	}
}
