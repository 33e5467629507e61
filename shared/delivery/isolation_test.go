package delivery_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// slowSender is a webhook.Sender whose sends to the URLs in slow take delay, and which records the
// most sends in flight at once per URL and when each send ended.
type slowSender struct {
	delay time.Duration
	slow  map[string]bool

	mu       sync.Mutex
	inFlight map[string]int
	peak     map[string]int
	ended    map[string][]time.Time
}

func newSlowSender(delay time.Duration, slow ...string) *slowSender {
	s := &slowSender{delay: delay, slow: map[string]bool{}, inFlight: map[string]int{}, peak: map[string]int{},
		ended: map[string][]time.Time{}}
	for _, u := range slow {
		s.slow[u] = true
	}
	return s
}

func (s *slowSender) Send(_ context.Context, url string, _ map[string]string, _ []byte) webhook.Result {
	s.mu.Lock()
	s.inFlight[url]++
	s.peak[url] = max(s.peak[url], s.inFlight[url])
	s.mu.Unlock()
	if s.slow[url] {
		time.Sleep(s.delay)
	} else {
		time.Sleep(time.Millisecond) // lets the others start, if the bound allowed them to
	}
	s.mu.Lock()
	s.inFlight[url]--
	s.ended[url] = append(s.ended[url], time.Now())
	s.mu.Unlock()
	return success
}

// TestDeliverIsolation: a batch's tasks are handled by webhook, each on its own: a slow receiver
// never has more than MaxInFlight attempts in flight, and never delays another webhook's.
func TestDeliverIsolation(t *testing.T) {
	slow, fast := activeHook("wh_slow"), activeHook("wh_fast")
	var dels []webhook.Delivery
	var tasks []webhook.Task
	for i := range 6 {
		for _, w := range []webhook.Webhook{slow, fast} {
			d := pending(fmt.Sprintf("dlv_%s_%d", w.ID, i), 0)
			d.WebhookID = w.ID
			dels = append(dels, d)
			tasks = append(tasks, taskFor(d, 1))
		}
	}
	s := newStore([]webhook.Webhook{slow, fast}, dels...)
	sender := newSlowSender(300*time.Millisecond, slow.URL)
	d := &delivery.Deliverer{Store: s, Queue: &queue{}, Sender: sender, Mailer: &mailer{}, Teams: teams{teamID: team},
		Schedule: webhook.DefaultSchedule, Logger: discard}

	start := time.Now()
	for i, err := range d.DeliverAll(context.Background(), tasks) {
		if err != nil {
			t.Errorf("DeliverAll: task %d = %v; want nil", i, err)
		}
	}
	if p := sender.peak[slow.URL]; p > delivery.MaxInFlight {
		t.Errorf("the slow webhook had %d attempts in flight at once; want at most %d", p, delivery.MaxInFlight)
	}
	if n := len(sender.ended[fast.URL]); n != 6 {
		t.Fatalf("the fast webhook got %d attempts; want 6", n)
	}
	for _, at := range sender.ended[fast.URL] {
		if at.Sub(start) > 200*time.Millisecond {
			t.Errorf("a fast webhook's attempt ended %s after the batch began, behind the slow one's", at.Sub(start))
		}
	}
}

// TestDeliverBusyWebhook: when every slot of a webhook stays taken (a slow receiver), its tasks
// are parked: nothing is sent or queued, and the delivery's due time moves to now so that the
// sweep queues the attempt again later, which then goes out once a slot is free.
func TestDeliverBusyWebhook(t *testing.T) {
	e := newEnv(pending("dlv_1", 2))
	e.store.busy = true
	task := taskFor(e.store.delivery("dlv_1"), 3)
	d := e.deliverer()
	if err := d.Deliver(context.Background(), task); err != nil {
		t.Fatalf("Deliver(%v) = %v; want nil (the task is parked)", task, err)
	}
	if q := e.queue.queued(); len(q) != 0 {
		t.Errorf("Deliver(%v) queued %v; want nothing (a slow webhook's tasks leave the queue)", task, q)
	}
	if n := len(e.sender.sent()); n != 0 {
		t.Errorf("Deliver(%v) sent %d requests to a busy webhook; want none", task, n)
	}
	if !slices.Equal(e.store.parked, []string{"dlv_1"}) || !e.store.swept["dlv_1"].Equal(now) {
		t.Errorf("Deliver(%v) parked %v (due %v); want dlv_1, due now", task, e.store.parked, e.store.swept["dlv_1"])
	}
	if got := e.store.delivery("dlv_1"); got.Attempt != 2 || got.Status != webhook.DeliveryPending {
		t.Errorf("Deliver(%v) left the delivery at attempt %d, %q; want 2, pending", task, got.Attempt, got.Status)
	}
	// The same process takes the webhook as busy for a second: a second task is parked at once.
	if err := d.Deliver(context.Background(), task); err != nil || len(e.store.parked) != 2 {
		t.Errorf("a second task for the busy webhook: %v, parked %v; want it parked", err, e.store.parked)
	}

	// The sweep queues it again; with the slots free, another worker sends it.
	e.store.busy = false
	clock := now.Add(webhook.DefaultSweepAfter + time.Second)
	sw := delivery.Sweeper{Store: e.store, Queue: e.queue, Now: func() time.Time { return clock }, Logger: discard}
	if n, err := sw.Sweep(context.Background()); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v; want the parked delivery", n, err)
	}
	back := e.queue.queued()[0]
	if err := e.deliverer().Deliver(context.Background(), back); err != nil {
		t.Fatalf("Deliver(%v) = %v; want nil", back, err)
	}
	if n := len(e.sender.sent()); n != 1 {
		t.Errorf("the parked attempt, queued again, sent %d requests; want 1", n)
	}
}

// TestDeliverWaitDelays: a task put back to wait for a quick webhook waits about the time the sends
// ahead of it take, at least a second, doubled after each wait, up to a minute.
func TestDeliverWaitDelays(t *testing.T) {
	d := &delivery.Deliverer{}
	tests := []struct {
		waits int
		retry time.Duration
		want  time.Duration
	}{
		{0, 0, time.Second},
		{0, 3 * time.Second, 3 * time.Second},
		{2, time.Second, 4 * time.Second},
		{10, 5 * time.Second, time.Minute},
	}
	for _, tt := range tests {
		got := delivery.WaitFor(d, webhook.Task{Waits: tt.waits}, now, tt.retry)
		if wait := got.NotBefore.Sub(now); wait < tt.want/2 || wait > tt.want || got.Waits != tt.waits+1 {
			t.Errorf("wait(%d waits, retry %s) = %s, %d waits; want between %s and %s, %d waits", tt.waits, tt.retry, wait,
				got.Waits, tt.want/2, tt.want, tt.waits+1)
		}
	}
}

// TestDeliverClaims: an attempt queued twice (by the sweep, or by SQS delivering a message twice)
// is sent once. A copy that finds the attempt claimed by another live claim waits; once the
// attempt is recorded, copies are dropped.
func TestDeliverClaims(t *testing.T) {
	e := newEnv(pending("dlv_1", 1))
	e.sender.result = success
	task := taskFor(e.store.delivery("dlv_1"), 2)
	a, b := task, task
	a.Token, b.Token = "a", "b"
	e.store.claims["dlv_1"] = claim{token: "a", until: now.Add(time.Minute)} // a is sending it now

	d := e.deliverer()
	if err := d.Deliver(context.Background(), b); err != nil {
		t.Fatalf("Deliver(copy) = %v; want nil", err)
	}
	if n := len(e.sender.sent()); n != 0 {
		t.Fatalf("a copy of an attempt claimed by another sent %d requests; want none", n)
	}
	if q := e.queue.queued(); len(q) != 1 || q[0].Token != "b" || !q[0].NotBefore.After(now) {
		t.Errorf("a copy of a claimed attempt queued %v; want it back, waiting", q)
	}
	if err := d.Deliver(context.Background(), a); err != nil {
		t.Fatalf("Deliver(claimant) = %v; want nil", err)
	}
	if err := d.Deliver(context.Background(), b); err != nil {
		t.Fatalf("Deliver(copy, after) = %v; want nil", err)
	}
	if n := len(e.sender.sent()); n != 1 {
		t.Errorf("two copies of one attempt sent %d requests; want 1", n)
	}

	// A claim whose time is up (its claimant crashed) is taken over.
	e2 := newEnv(pending("dlv_1", 1))
	e2.sender.result = success
	e2.store.claims["dlv_1"] = claim{token: "crashed", until: now.Add(-time.Second)}
	if err := e2.deliverer().Deliver(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if n := len(e2.sender.sent()); n != 1 {
		t.Errorf("an attempt whose claim ran out sent %d requests; want 1", n)
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
	change := func(src, team string, at time.Time) webhook.Change {
		ts := patio.NewTimestamp(at)
		return webhook.Change{SourceID: src, Resource: webhook.ResourceVehicle, TeamID: team, At: at,
			New: patio.Vehicle{ID: src, TeamID: team, Title: "T", Brand: "B", Model: "M", Price: money.Cents(100),
				Phase: "preparacao", Status: patio.VehicleActive, CreatedAt: ts, UpdatedAt: ts}}
	}
	other := activeHook("wh_2")
	other.TeamID = "team_2"
	s := &countingStore{store: newStore([]webhook.Webhook{activeHook(hookID), other})}
	q := &queue{}
	clock := now
	d := &delivery.Dispatcher{Store: s, Queue: q, Now: func() time.Time { return clock }, Logger: discard}
	old := now.Add(-time.Minute)
	batch := []webhook.Change{change("a", teamID, old), change("b", "team_2", old), change("c", teamID, old)}
	if n, err := d.Dispatch(context.Background(), batch); n != 3 || err != nil {
		t.Fatalf("Dispatch = %d, %v; want 3, nil", n, err)
	}
	if s.reads != 2 {
		t.Errorf("a batch of two teams read webhook lists %d times; want 2", s.reads)
	}
	if n := len(q.queued()); n != 3 {
		t.Errorf("Dispatch queued %d tasks; want 3", n)
	}

	// Old changes again, a second later: the lists read before serve them.
	clock = now.Add(time.Second)
	if _, err := d.Dispatch(context.Background(), []webhook.Change{change("d", teamID, old)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 2 {
		t.Errorf("a change older than the cached list read the list again (%d reads); want 2", s.reads)
	}
	// A change as new as the list is dispatched with a fresh one: a webhook created meanwhile gets it.
	late := activeHook("wh_late")
	late.CreatedAt = patio.NewTimestamp(now)
	s.store.mu.Lock()
	s.store.hooks[late.ID] = late
	s.store.mu.Unlock()
	if _, err := d.Dispatch(context.Background(), []webhook.Change{change("e", teamID, now)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 3 {
		t.Errorf("a change newer than the cached list used it (%d reads); want 3", s.reads)
	}
	id := webhook.DeliveryID(webhook.EventID("e", webhook.VehicleCreated), late.ID)
	if got := s.store.delivery(id); got.Status != webhook.DeliveryPending {
		t.Errorf("the webhook created before the change has delivery %+v; want it pending", got)
	}
	// After CacheFor, even old changes read the list again.
	clock = now.Add(time.Minute)
	if _, err := d.Dispatch(context.Background(), []webhook.Change{change("f", teamID, old)}); err != nil {
		t.Fatal(err)
	}
	if s.reads != 4 {
		t.Errorf("a list older than CacheFor was used (%d reads); want 4", s.reads)
	}

	// A failure to store deliveries reports the change they came from.
	s.store.fail["CreateDeliveries"] = errBoom
	batch = []webhook.Change{change("g", teamID, old), change("h", teamID, old)}
	if n, err := d.Dispatch(context.Background(), batch); n != 0 || err == nil {
		t.Errorf("Dispatch with the store failing = %d, %v; want 0 and the error", n, err)
	}
}

// TestSweep: pending deliveries whose next attempt is overdue by more than After get it queued
// again, once per After; others are left alone.
func TestSweep(t *testing.T) {
	at := func(d webhook.Delivery, due time.Time) webhook.Delivery {
		if d.Attempt == 0 {
			d.UpdatedAt = due
		} else {
			d.NextAttemptAt = &due
		}
		return d
	}
	lostFirst := at(pending("dlv_first", 0), now.Add(-10*time.Minute))
	lostThird := at(pending("dlv_third", 2), now.Add(-4*time.Minute))
	late := at(pending("dlv_late", 1), now.Add(-time.Minute)) // late, not lost yet
	future := at(pending("dlv_future", 3), now.Add(time.Hour))
	done := pending("dlv_done", 2)
	done.Status = webhook.DeliverySucceeded
	s := newStore([]webhook.Webhook{activeHook(hookID)}, lostFirst, lostThird, late, future, done)
	q := &queue{}
	clock := now
	sw := delivery.Sweeper{Store: s, Queue: q, Now: func() time.Time { return clock }, Logger: discard}

	n, err := sw.Sweep(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2, nil", n, err)
	}
	want := []webhook.Task{
		{DeliveryID: "dlv_first", TeamID: teamID, WebhookID: hookID, EventID: "evt_dlv_first", Attempt: 1, Due: lostFirst.DueAt()},
		{DeliveryID: "dlv_third", TeamID: teamID, WebhookID: hookID, EventID: "evt_dlv_third", Attempt: 3, Due: lostThird.DueAt()},
	}
	if got := q.queued(); !slices.Equal(got, want) {
		t.Errorf("Sweep queued %v; want %v", got, want)
	}
	if n, _ := sw.Sweep(context.Background()); n != 0 {
		t.Errorf("a second sweep at once queued %d; want 0 (each is swept once per After)", n)
	}
	clock = now.Add(webhook.DefaultSweepAfter + time.Second)
	if n, _ := sw.Sweep(context.Background()); n != 3 {
		t.Errorf("a sweep After later queued %d; want 3 (the two again, and the late one now lost)", n)
	}
}
