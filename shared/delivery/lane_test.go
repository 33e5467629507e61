package delivery_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/webhook"
)

// pacedSender is a webhook sender whose sends to a URL take delay[url] and answer answer(url, n)
// (n: the URL's n-th request, 1-based; success when nil). It keeps when each send started and
// the most sends in flight at once per URL.
type pacedSender struct {
	delay  map[string]time.Duration
	answer func(url string, n int) webhook.Result

	mu       sync.Mutex
	started  map[string][]time.Time
	ended    map[string][]time.Time
	inFlight map[string]int
	peak     map[string]int
}

func newPacedSender() *pacedSender {
	return &pacedSender{delay: map[string]time.Duration{}, started: map[string][]time.Time{}, ended: map[string][]time.Time{},
		inFlight: map[string]int{}, peak: map[string]int{}}
}

func (s *pacedSender) Send(_ context.Context, url string, _ map[string]string, _ []byte) webhook.Result {
	s.mu.Lock()
	s.started[url] = append(s.started[url], time.Now())
	n := len(s.started[url])
	s.inFlight[url]++
	s.peak[url] = max(s.peak[url], s.inFlight[url])
	delay := s.delay[url]
	s.mu.Unlock()
	time.Sleep(max(delay, time.Millisecond)) // lets the others start, if the bound allowed them to
	res := webhook.Result{StatusCode: 200, Duration: delay}
	if s.answer != nil {
		res = s.answer(url, n)
	}
	s.mu.Lock()
	s.inFlight[url]--
	s.ended[url] = append(s.ended[url], time.Now())
	s.mu.Unlock()
	return res
}

func (s *pacedSender) starts(url string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.started[url])
}

func (s *pacedSender) ends(url string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ended[url])
}

func (s *pacedSender) peakOf(url string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak[url]
}

// tasks stores n pending deliveries (not yet attempted) to hook and returns their first attempts'
// tasks, due now.
func (e *env) tasks(hook webhook.Webhook, n int) []webhook.Task {
	e.t.Helper()
	var out []webhook.Task
	for range n {
		name := fmt.Sprintf("%s_%d", hook.ID[len(e.team.ID):], unique.Add(1))
		d := pending(name, 0, func(d *webhook.Delivery) { d.WebhookID = hook.ID })(e)
		e.put(d)
		out = append(out, webhook.Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: hook.ID, EventID: d.EventID, Attempt: 1,
			Due: time.Now().UTC(), Token: "tok-" + d.ID})
	}
	return out
}

// realClock is a deliverer on the machine's clock (these tests are about time passing).
func (e *env) realClock(s delivery.Sender) *delivery.Deliverer {
	d := e.deliverer()
	d.Sender, d.Now = s, nil
	return d
}

// TestDeliverIsolation: a batch's tasks are handled by webhook, each on its own: a slow receiver
// (its answers too slow to raise its bound) never has more than its bound in flight, and never
// delays another webhook's.
func TestDeliverIsolation(t *testing.T) {
	e := newEnv(t)
	slow, fast := e.newHook("wh_slow"), e.newHook("wh_fast")
	s := newPacedSender()
	s.delay[slow.URL] = 1100 * time.Millisecond
	tasks := append(e.tasks(slow, 6), e.tasks(fast, 6)...)
	for i, err := range e.realClock(s).DeliverAll(context.Background(), tasks) {
		if err != nil {
			t.Errorf("DeliverAll: task %d = %v; want nil", i, err)
		}
	}
	if p := s.peakOf(slow.URL); p > delivery.InitialBound {
		t.Errorf("the slow webhook had %d attempts in flight at once; want at most its first bound, %d", p, delivery.InitialBound)
	}
	ended, slowEnded := s.ends(fast.URL), s.ends(slow.URL)
	if len(ended) != 6 || len(slowEnded) == 0 {
		t.Fatalf("the fast webhook got %d attempts and the slow one %d; want 6 and some", len(ended), len(slowEnded))
	}
	// Behind the slow one the fast webhook's attempts would wait out its sends (1.1 s each, four
	// at a time): measured against the slow one's first answer rather than a time of the clock,
	// so that a machine slow to schedule the batch's work does not count as a delay.
	firstSlow := slices.MinFunc(slowEnded, time.Time.Compare)
	for _, at := range ended {
		if !at.Before(firstSlow) {
			t.Errorf("a fast webhook's attempt ended %s after the slow webhook's first answer; want every one before, not behind the slow one's",
				at.Sub(firstSlow))
		}
	}
}

// TestDeliverBoundShared: two workers (two deliverers, as two processes) share one bound, kept in
// the store: a receiver that answers 500 never has more requests in flight than the bound it
// started at, and its answers lower the bound both workers see.
func TestDeliverBoundShared(t *testing.T) {
	e := newEnv(t)
	s := newPacedSender()
	s.delay[e.hook.URL] = 150 * time.Millisecond
	s.answer = func(string, int) webhook.Result {
		return webhook.Result{StatusCode: 500, Duration: 150 * time.Millisecond, ErrorClass: webhook.ErrHTTPStatus}
	}
	tasks := e.tasks(e.hook, 16)
	workers := []*delivery.Deliverer{e.realClock(s), e.realClock(s)}
	var wg sync.WaitGroup
	for w, d := range workers {
		wg.Go(func() {
			for _, err := range d.DeliverAll(context.Background(), tasks[w*8:(w+1)*8]) {
				if err != nil {
					t.Errorf("DeliverAll = %v", err)
				}
			}
		})
	}
	wg.Wait()
	if p := s.peakOf(e.hook.URL); p > delivery.InitialBound || p == 0 {
		t.Errorf("two workers had %d requests in flight at once to one receiver; want 1 to %d (one bound for both)", p, delivery.InitialBound)
	}
	g, err := e.store.Gate(context.Background(), e.team.ID, e.hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Bound != 1 || len(g.Leases) != 0 {
		t.Errorf("after a run of 500s the gate holds bound %d, leases %v; want 1 and none (both workers done)", g.Bound, g.Leases)
	}
}

// TestDeliverFirstLease: a worker's first send to a webhook whose gate was written before goes out
// on a lease taken beside the load, with no write of the gate between the load and the send; and
// eight such workers starting at once still never have more in flight than the bound.
func TestDeliverFirstLease(t *testing.T) {
	e := newEnv(t)
	s := newPacedSender()
	s.delay[e.hook.URL] = 150 * time.Millisecond
	s.answer = func(string, int) webhook.Result {
		return webhook.Result{StatusCode: 500, Duration: 150 * time.Millisecond, ErrorClass: webhook.ErrHTTPStatus}
	}
	for _, err := range e.realClock(s).DeliverAll(context.Background(), e.tasks(e.hook, 1)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	g, err := e.store.Gate(context.Background(), e.team.ID, e.hook.ID)
	if err != nil {
		t.Fatal(err)
	}

	watch := &swapWatch{Sender: s, swaps: &e.store.swaps}
	before := e.store.swaps.Load()
	for _, err := range e.realClock(watch).DeliverAll(context.Background(), e.tasks(e.hook, 1)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := watch.first(); got != before {
		t.Errorf("a worker's first send came after %d writes of the gate; want none (its lease taken beside the load)", got-before)
	}
	if got := e.store.swaps.Load() - before; got != 1 {
		t.Errorf("a worker's lone send wrote the gate %d times; want 1 (its lease given back)", got)
	}

	tasks := e.tasks(e.hook, 16)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for _, err := range e.realClock(s).DeliverAll(context.Background(), tasks[w*2:(w+1)*2]) {
				if err != nil {
					t.Errorf("DeliverAll = %v", err)
				}
			}
		})
	}
	wg.Wait()
	if p := s.peakOf(e.hook.URL); p > g.Bound || p == 0 {
		t.Errorf("eight workers starting at once had %d requests in flight to one receiver; want 1 to %d (the bound)", p, g.Bound)
	}
}

// swapWatch is a sender that notes how many writes of the gate its store had made at its first
// send.
type swapWatch struct {
	delivery.Sender
	swaps *atomic.Int64

	mu    sync.Mutex
	at    int64
	noted bool
}

func (w *swapWatch) Send(ctx context.Context, url string, headers map[string]string, body []byte) webhook.Result {
	w.mu.Lock()
	if !w.noted {
		w.at, w.noted = w.swaps.Load(), true
	}
	w.mu.Unlock()
	return w.Sender.Send(ctx, url, headers, body)
}

func (w *swapWatch) first() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at
}

// TestDeliverHold: a 429 with Retry-After holds every delivery of the webhook, for every worker,
// until then: the answered attempt is failed and its next one goes at the end of the hold (later
// than its slot of the schedule); the other attempts go back to the queue, without a request,
// to be tried when the hold ends, and say so when they go out.
func TestDeliverHold(t *testing.T) {
	e := newEnv(t)
	s := newPacedSender()
	s.answer = func(_ string, n int) webhook.Result {
		if n == 1 {
			return webhook.Result{StatusCode: 429, ErrorClass: webhook.ErrHTTPStatus, RetryAfter: "30"}
		}
		return webhook.Result{StatusCode: 200}
	}
	first := e.tasks(e.hook, 1)[0]
	d := e.realClock(s)
	d.Schedule = webhook.Schedule{0, time.Second, time.Second, time.Second, time.Second, time.Second}
	answered := time.Now()
	if err := d.Deliver(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.Delivery(context.Background(), first.DeliveryID)
	if err != nil {
		t.Fatal(err)
	}
	holdEnd := answered.Add(30 * time.Second)
	if got.Status != webhook.DeliveryPending || got.Attempt != 1 || got.NextAttemptAt == nil ||
		got.NextAttemptAt.Before(holdEnd.Add(-time.Second)) || got.NextAttemptAt.After(holdEnd.Add(2*time.Second)) {
		t.Fatalf("after a 429 with Retry-After: 30 the delivery is %q at attempt %d, next %v; want pending, 1, next about %v",
			got.Status, got.Attempt, got.NextAttemptAt, holdEnd)
	}
	// Another worker, with its own tasks for the webhook: held too, through the store.
	other := e.realClock(s)
	more := e.tasks(e.hook, 3)
	e.queue.tasks = nil
	for _, err := range other.DeliverAll(context.Background(), more) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.starts(e.hook.URL)); n != 1 {
		t.Errorf("during the hold the receiver got %d requests in all; want only the answered one", n)
	}
	q := e.queue.queued()
	if len(q) != 3 {
		t.Fatalf("during the hold another worker queued %v; want its 3 tasks back", q)
	}
	for _, back := range q {
		if back.NotBefore.Before(holdEnd.Add(-time.Second)) || back.HeldBy != webhook.HeldRetryAfter {
			t.Errorf("a held task came back %v, held by %q; want after the hold's end %v, by %q", back.NotBefore, back.HeldBy, holdEnd, webhook.HeldRetryAfter)
		}
	}
	// When it comes back after the hold, it goes out and its record says why it was late.
	back := q[0]
	back.NotBefore, back.Due = time.Time{}, time.Now().Add(-40*time.Second)
	if g, err := e.store.Gate(context.Background(), e.team.ID, e.hook.ID); err != nil || g.Hold.Before(holdEnd.Add(-time.Second)) {
		t.Fatalf("the gate's hold is %v, %v; want about %v", g.Hold, err, holdEnd)
	}
	third := e.realClock(s)
	if err := clearHold(e); err != nil {
		t.Fatal(err)
	}
	if err := third.Deliver(context.Background(), back); err != nil {
		t.Fatal(err)
	}
	rec, err := e.store.Delivery(context.Background(), back.DeliveryID)
	if err != nil || rec.Status != webhook.DeliverySucceeded {
		t.Fatalf("the held attempt, back after the hold: %q, %v; want succeeded", rec.Status, err)
	}
	if a := rec.Attempts[0]; a.HeldBy != webhook.HeldRetryAfter || a.HeldMs < 30000 {
		t.Errorf("the held attempt was recorded held by %q, %d ms late; want %q, 30 s or more", a.HeldBy, a.HeldMs, webhook.HeldRetryAfter)
	}
}

// clearHold ends the env's webhook's hold in the store, as its time passing would.
func clearHold(e *env) error {
	for range 5 {
		g, err := e.store.Gate(context.Background(), e.team.ID, e.hook.ID)
		if err != nil {
			return err
		}
		g.Hold = time.Time{}
		if _, ok, err := e.store.SwapGate(context.Background(), e.team.ID, e.hook.ID, g); err != nil || ok {
			return err
		}
	}
	return fmt.Errorf("the gate kept changing")
}

// TestDeliverMaxRate: a webhook with a max_rate never gets more requests starting in any one
// second than it, from two workers at once; what cannot start soon goes back to the queue, saying
// why.
func TestDeliverMaxRate(t *testing.T) {
	e := newEnv(t)
	hook := e.newHook("wh_rated", func(w *webhook.Webhook) { w.MaxRate = 2 })
	s := newPacedSender()
	tasks := e.tasks(hook, 24)
	var wg sync.WaitGroup
	for w := range 2 {
		d := e.realClock(s)
		wg.Go(func() {
			for _, err := range d.DeliverAll(context.Background(), tasks[w*12:(w+1)*12]) {
				if err != nil {
					t.Errorf("DeliverAll = %v", err)
				}
			}
		})
	}
	wg.Wait()
	starts := s.starts(hook.URL)
	slices.SortFunc(starts, time.Time.Compare)
	for i, st := range starts {
		n := 0
		for _, o := range starts[i:] {
			// The sender sees each start some time after the deliverer made it, by as much as the
			// scheduler delays each (on a loaded machine, under the race detector, up to tens of
			// milliseconds): the window is counted that much short.
			if o.Sub(st) < time.Second-150*time.Millisecond {
				n++
			}
		}
		if n > 2 {
			var rel []string
			for _, o := range starts {
				rel = append(rel, o.Sub(starts[0]).Round(time.Millisecond).String())
			}
			t.Fatalf("%d requests started in the second from %v; want at most max_rate, 2 (starts: %v)", n, st, rel)
		}
	}
	// Five seconds of waiting in the worker let about 10 through; the rest went back.
	q := e.queue.queued()
	if len(starts) < 6 || len(starts)+len(q) != 24 {
		t.Errorf("%d requests went out and %d tasks went back; want most of the first 5 seconds' worth out, the rest back (24 in all)",
			len(starts), len(q))
	}
	for _, back := range q {
		if back.HeldBy != webhook.HeldMaxRate {
			t.Errorf("a task held by the max_rate came back held by %q; want %q", back.HeldBy, webhook.HeldMaxRate)
		}
	}
}

// TestDeliverSlowWebhookParked: when a webhook's receiver struggles (its sends time out) and its
// bound is all in flight, its other tasks are parked: nothing is sent or queued, and the
// delivery's due time moves to now, so that the sweep queues the attempt again later. No task is
// lost on the way: each is attempted (its retry queued) or parked. The second batch comes right
// after the first, as a busy worker's batches do.
func TestDeliverSlowWebhookParked(t *testing.T) {
	e := newEnv(t)
	s := newPacedSender()
	s.delay[e.hook.URL] = 1200 * time.Millisecond
	s.answer = func(string, int) webhook.Result {
		return webhook.Result{Duration: 1200 * time.Millisecond, ErrorClass: webhook.ErrTimeout}
	}
	d := e.realClock(s)
	batch1, batch2 := e.tasks(e.hook, 2), e.tasks(e.hook, 8)
	// A first batch finds out: its sends time out, and the bound falls.
	from := time.Now()
	for _, err := range d.DeliverAll(context.Background(), batch1) {
		if err != nil {
			t.Fatal(err)
		}
	}
	first := len(s.starts(e.hook.URL))
	f1 := e.fates(batch1, from, time.Now())
	if first == 0 || f1.attempted != first {
		t.Fatalf("the first batch made %d requests and recorded %d attempts with their retries queued; want each of at least one request so",
			first, f1.attempted)
	}
	from = time.Now()
	for _, err := range d.DeliverAll(context.Background(), batch2) {
		if err != nil {
			t.Fatal(err)
		}
	}
	sent := len(s.starts(e.hook.URL)) - first
	if sent < 1 || sent > delivery.InitialBound {
		t.Errorf("a struggling webhook got %d requests of the second batch; want 1 to %d", sent, delivery.InitialBound)
	}
	f2 := e.fates(batch2, from, time.Now())
	if f2.attempted != sent || f2.back != 0 || f2.parked != len(batch2)-sent {
		t.Errorf("of the second batch %d requests went out, %d attempts were recorded with their retries queued, %d parked, %d sent back to "+
			"the queue; want every request's attempt recorded and the other %d parked", sent, f2.attempted, f2.parked, f2.back, len(batch2)-sent)
	}
	if q, want := len(e.queue.queued()), f1.attempted+f1.back+f2.attempted+f2.back; q != want {
		t.Errorf("%d tasks were queued; want %d: the retries of the attempts made and the tasks sent back, nothing else", q, want)
	}
}

// fate counts what became of tasks.
type fate struct{ attempted, parked, back int }

// fates returns what became of tasks handled between from and to: attempted (the attempt recorded,
// the delivery pending with its retry queued for its next attempt time), parked (the delivery
// pending, nothing queued, held by the webhook's bound and due again from the park: held_until is
// the due time the park set, which the sweep reads) or sent back to the queue (the task queued
// again later, held by the bound). It reports each task that is none of these: lost, or handled
// in two ways.
func (e *env) fates(tasks []webhook.Task, from, to time.Time) fate {
	e.t.Helper()
	queued := map[string][]webhook.Task{}
	for _, q := range e.queue.queued() {
		queued[q.DeliveryID] = append(queued[q.DeliveryID], q)
	}
	var f fate
	for _, task := range tasks {
		del, err := e.store.Delivery(context.Background(), task.DeliveryID)
		if err != nil {
			e.t.Errorf("the delivery of a task: %v; want it kept", err)
			continue
		}
		q := queued[task.DeliveryID]
		switch {
		case del.Status != webhook.DeliveryPending:
			e.t.Errorf("delivery %s is %q; want pending (its receiver never answers)", del.ID, del.Status)
		case del.Attempt == 1:
			f.attempted++
			// The store keeps milliseconds.
			if del.NextAttemptAt == nil || len(q) != 1 || q[0].Attempt != 2 || !q[0].Due.Truncate(time.Millisecond).Equal(*del.NextAttemptAt) {
				e.t.Errorf("delivery %s was attempted, its next attempt due %v, and the tasks queued for it are %+v; want its retry, due then",
					del.ID, del.NextAttemptAt, q)
			}
		case del.Attempt == 0 && len(q) == 0:
			f.parked++
			if del.HeldBy != webhook.HeldBound || del.HeldUntil == nil ||
				del.HeldUntil.Before(from.Truncate(time.Millisecond)) || del.HeldUntil.After(to) {
				e.t.Errorf("delivery %s, neither attempted nor queued, is held by %q until %v; want parked: held by %q, due again from between %v and %v",
					del.ID, del.HeldBy, del.HeldUntil, webhook.HeldBound, from, to)
			}
		case del.Attempt == 0 && len(q) == 1 && q[0].Attempt == 1:
			f.back++
			if q[0].HeldBy != webhook.HeldBound || !q[0].NotBefore.After(from) {
				e.t.Errorf("delivery %s went back to the queue held by %q, not before %v; want held by %q, later than %v",
					del.ID, q[0].HeldBy, q[0].NotBefore, webhook.HeldBound, from)
			}
		default:
			e.t.Errorf("delivery %s made %d attempts and the tasks queued for it are %+v; want attempted with its retry queued, parked, or sent back",
				del.ID, del.Attempt, q)
		}
	}
	return f
}

// TestDeliverSlowAnswersWaitedFor: a receiver that answers, however slowly, is not taken as
// struggling: its attempts wait for the bound (in the worker, or back on the queue), none parked.
func TestDeliverSlowAnswersWaitedFor(t *testing.T) {
	e := newEnv(t)
	s := newPacedSender()
	s.delay[e.hook.URL] = 1200 * time.Millisecond
	tasks := e.tasks(e.hook, 8)
	for _, err := range e.realClock(s).DeliverAll(context.Background(), tasks) {
		if err != nil {
			t.Fatal(err)
		}
	}
	sent, back := len(s.starts(e.hook.URL)), len(e.queue.queued())
	if sent+back != len(tasks) || sent < delivery.InitialBound {
		t.Errorf("%d sent and %d back on the queue; want the %d tasks between them, the bound's first %d sent", sent, back, len(tasks),
			delivery.InitialBound)
	}
}
