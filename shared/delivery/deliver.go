package delivery

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/patio"

	"github.com/patio-dev/patio/shared/webhook"
)

// warnAfter is the failed attempt of a series after which the team is warned (CONTRACT.md section
// 14): the 4th, two before the webhook would be disabled.
const warnAfter = 4

// MaxInFlight is how many attempts to one webhook may be in flight at once (CONTRACT.md section
// 14): one slow or failing receiver occupies at most this many workers, never another webhook's.
const MaxInFlight = 4

// Timings of the deliverer's isolation of webhooks from one another.
const (
	// slotWait bounds how long a batch's attempt waits in its worker for a slot of a webhook whose
	// sends are quick (a backlog drains without churning the queue) before it goes back to the queue;
	// it goes back at once when the sends ahead of it would take longer, or when the webhook is slow
	// (see slotPool.get). busyFor is how long the webhook is then taken as busy by this process,
	// whose batches put its tasks back at once unless a slot is free.
	slotWait = 5 * time.Second
	busyFor  = time.Second
	// claimFor is how long a claim on an attempt lasts: longer than a task's longest wait for its
	// webhook (maxWait) plus an attempt, so that the task coming back finds its claim, and short
	// enough that a crashed claimant blocks the sweep's copy for no more than that.
	claimFor = 2 * time.Minute
	// maxWait bounds the delay of a task put back because its webhook was busy.
	maxWait = 60 * time.Second
)

// Deliverer makes the attempts queued tasks describe, records them, and schedules the next ones or
// ends the series (applying the deactivation rule). Use it through a pointer: it remembers, for a
// second, which webhooks it found busy.
//
// Isolation (CONTRACT.md section 14): the tasks of a batch are handled by webhook, each webhook's
// group on its own. Before sending, a group claims each task's attempt on its delivery (so that an
// attempt queued twice, by the sweep or by SQS, is sent once). Each send then needs one of the
// webhook's MaxInFlight slots, kept in the store for every worker of every process and lent out
// within a process by a pool (see slotPool). An attempt that gets no slot of a quick webhook within
// slotWait goes back to the queue with a delay about the time the sends ahead of it take; one of a
// slow webhook (its sends take long, or its slots stop coming back) is parked: off the queue, its
// delivery pending with its due time reset, for the sweep to queue again in a few minutes. Either
// way it waits its turn without holding a worker.
type Deliverer struct {
	Store    Store
	Queue    Queue
	Sender   Sender
	Mailer   Mailer
	Teams    Teams
	Schedule webhook.Schedule
	// Timeout is the sender's timeout (how long one attempt may take); it sets how long slots are
	// held. webhook.DefaultTimeout when zero.
	Timeout time.Duration
	Now     func() time.Time
	Logger  *slog.Logger

	pools sync.Map // webhook id → *slotPool
}

// Deliver handles one task; see DeliverAll.
func (d *Deliverer) Deliver(ctx context.Context, t webhook.Task) error {
	return d.DeliverAll(ctx, []webhook.Task{t})[0]
}

// DeliverAll handles a batch of tasks and returns the outcome of each: an error means the task must
// be handled again (its message is kept); stale and duplicate tasks are dropped without error,
// and tasks put back on the queue (a hop, a busy webhook) are done.
func (d *Deliverer) DeliverAll(ctx context.Context, tasks []webhook.Task) []error {
	errs := make([]error, len(tasks))
	var (
		later  []int                // tasks not due yet: hops
		groups = map[string][]int{} // webhook id → its tasks due now
		order  []string
	)
	now := clock(d.Now)
	for i, t := range tasks {
		if t.When().Sub(now) >= time.Second {
			later = append(later, i)
			continue
		}
		if _, ok := groups[t.WebhookID]; !ok {
			order = append(order, t.WebhookID)
		}
		groups[t.WebhookID] = append(groups[t.WebhookID], i)
	}
	out := &outbox{}
	for _, i := range later {
		logFor(d.Logger, tasks[i]).DebugContext(ctx, "attempt not due yet: hop", slog.Time("due", tasks[i].When()))
		out.add(tasks[i], i)
	}
	var wg sync.WaitGroup
	for _, id := range order {
		wg.Go(func() {
			idx := groups[id]
			group := make([]webhook.Task, len(idx))
			for k, i := range idx {
				group[k] = tasks[i]
			}
			gerrs := d.deliverGroup(ctx, group, out, idx)
			for k, i := range idx {
				errs[i] = gerrs[k]
			}
		})
	}
	wg.Wait()
	// Everything to queue goes in as few calls as the queue allows. A task whose follow-up could
	// not be queued is handled again: it then finds its attempt recorded and queues it.
	for k, err := range d.Queue.EnqueueAll(ctx, out.tasks) {
		if err != nil && errs[out.from[k]] == nil {
			errs[out.from[k]] = err
		}
	}
	return errs
}

// outbox collects the tasks a batch queues, each with the index of the task it comes from.
type outbox struct {
	mu    sync.Mutex
	tasks []webhook.Task
	from  []int
}

func (o *outbox) add(t webhook.Task, from int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tasks = append(o.tasks, t)
	o.from = append(o.from, from)
}

// claimed is a task whose attempt this group claimed, with its delivery.
type claimed struct {
	k       int // index in the group
	task    webhook.Task
	del     webhook.Delivery
	res     webhook.Result
	at      time.Time
	sent    bool
	attempt webhook.Attempt // as recorded
}

// deliverGroup handles the tasks of one webhook; idx maps them to the batch (for the outbox).
func (d *Deliverer) deliverGroup(ctx context.Context, group []webhook.Task, out *outbox, idx []int) (errs []error) {
	errs = make([]error, len(group))
	t0 := group[0]
	pool := d.pool(t0.TeamID, t0.WebhookID)
	var (
		succeeded []int // the group's tasks whose send succeeded
		success   time.Time
		mu        sync.Mutex
	)
	defer func() {
		if err := pool.leave(ctx, success); err != nil {
			for _, k := range succeeded {
				if errs[k] == nil {
					errs[k] = err
				}
			}
		}
	}()
	now := clock(d.Now)
	if pool.saturated(time.Now()) {
		for k, t := range group {
			if t.Token == "" {
				t.Token = newToken()
			}
			errs[k] = d.park(ctx, t, now)
		}
		return errs
	}
	// Wait for tasks due within the second.
	var due time.Time
	for _, t := range group {
		if t.When().After(due) {
			due = t.When()
		}
	}
	if wait := due.Sub(now); wait > 0 {
		select {
		case <-ctx.Done():
			for k := range errs {
				errs[k] = ctx.Err()
			}
			return errs
		case <-time.After(wait):
		}
		now = clock(d.Now)
	}

	// Claim every attempt, at once.
	var (
		ready []*claimed
		wg    sync.WaitGroup
	)
	for k, t := range group {
		wg.Go(func() {
			if t.Token == "" {
				t.Token = newToken()
			}
			del, ok, err := d.Store.ClaimDelivery(ctx, t.DeliveryID, t.Series, t.Attempt, t.Token, now, now.Add(claimFor))
			switch {
			case err != nil && patio.IsKind(err, patio.KindNotFound):
				logFor(d.Logger, t).WarnContext(ctx, "task for an unknown delivery dropped")
			case err != nil:
				errs[k] = err
			case !ok:
				errs[k] = d.unclaimed(ctx, t, del, out, idx[k], now)
			default:
				mu.Lock()
				ready = append(ready, &claimed{k: k, task: t, del: del})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(ready) == 0 {
		return errs
	}
	w, err := d.Store.Webhook(ctx, t0.TeamID, t0.WebhookID)
	if err != nil && !patio.IsKind(err, patio.KindNotFound) {
		for _, c := range ready {
			errs[c.k] = err
		}
		return errs
	}
	if err != nil || w.Status != webhook.StatusActive {
		for _, c := range ready {
			logFor(d.Logger, c.task).InfoContext(ctx, "delivery cancelled: webhook not active")
			_, err := d.Store.SetDeliveryStatus(ctx, c.del.ID, []string{webhook.DeliveryPending}, webhook.DeliveryCancelled, false)
			errs[c.k] = ignoreConflict(err)
		}
		return errs
	}

	// Each attempt waits for a slot of the webhook (until slotWait has passed), sends and gives the
	// slot back; one that gets no slot goes back to the queue. Then the attempts sent are logged
	// (one write for many) and recorded.
	deadline := time.Now().Add(slotWait)
	for _, c := range ready {
		wg.Go(func() {
			if ok, retry, slow := pool.get(ctx, deadline); !ok {
				if slow {
					errs[c.k] = d.park(ctx, c.task, clock(d.Now))
				} else {
					out.add(d.wait(c.task, clock(d.Now), retry), idx[c.k])
				}
				return
			}
			sendStart := time.Now()
			c.at = clock(d.Now)
			c.res = d.Sender.Send(ctx, w.URL, webhook.Headers(c.del.EventID, c.del.Payload, w.KeysAt(c.at), c.at), c.del.Payload)
			c.sent = true
			var ok time.Time
			if c.res.OK() {
				ok = c.at
				mu.Lock()
				succeeded = append(succeeded, c.k)
				if c.at.After(success) {
					success = c.at
				}
				mu.Unlock()
			}
			pool.put(ctx, time.Since(sendStart), ok)
		})
	}
	wg.Wait()
	var log []webhook.LoggedAttempt
	for _, c := range ready {
		if c.sent {
			c.attempt = d.attempt(c)
			log = append(log, webhook.LoggedAttempt{DeliveryID: c.del.ID, Attempt: c.attempt})
		}
	}
	if len(log) > 0 {
		if err := d.Store.LogAttempts(ctx, log); err != nil {
			// The attempts are recorded on their deliveries all the same; only their response
			// bodies are missing from the log.
			logger(d.Logger).WarnContext(ctx, "logging attempts failed", slog.String("webhook_id", w.ID),
				slog.String("error", err.Error()))
		}
	}
	for _, c := range ready {
		if c.sent {
			wg.Go(func() { errs[c.k] = d.record(ctx, c, out, idx[c.k]) })
		}
	}
	wg.Wait()
	return errs
}

// attempt returns the attempt c made as it is recorded: its next attempt time set when one is due.
func (d *Deliverer) attempt(c *claimed) webhook.Attempt {
	t, res := c.task, c.res
	a := webhook.Attempt{Series: t.Series, N: t.Attempt, At: c.at, StatusCode: res.StatusCode,
		DurationMs: res.Duration.Milliseconds(), ErrorClass: res.ErrorClass, ResponseBody: res.Body}
	if !res.OK() && t.Attempt < webhook.MaxAttempts && !c.del.Test {
		due := c.at.Add(d.Schedule.Before(t.Attempt + 1))
		a.NextAttemptAt = &due
	}
	return a
}

// park takes a task of a slow webhook off the queue: its message is done with, and its delivery
// stays pending with its due time moved to now, so that the sweep queues its attempt again in a few
// minutes. The attempts a slow webhook's slots allow go on meanwhile; a queue full of its waiting
// tasks would slow every other webhook's (each message costs every queue operation something).
func (d *Deliverer) park(ctx context.Context, t webhook.Task, now time.Time) error {
	logFor(d.Logger, t).DebugContext(ctx, "attempt parked: webhook slow")
	return d.Store.ParkDelivery(ctx, t.DeliveryID, t.Series, t.Attempt, t.Token, now)
}

// wait returns t put back to wait for its webhook about retry (at least a second), doubled after each
// earlier wait, up to maxWait, jittered so that waiting tasks do not come back together.
func (d *Deliverer) wait(t webhook.Task, now time.Time, retry time.Duration) webhook.Task {
	delay := min(max(retry, time.Second)<<min(t.Waits, 6), maxWait)
	delay = delay/2 + rand.N(delay/2+1)
	t.Waits++
	t.NotBefore = now.Add(delay)
	return t
}

// unclaimed handles a task whose attempt could not be claimed, given the stored delivery: a
// duplicate or stale task is dropped, one whose attempt another worker holds waits, and a task
// whose attempt was recorded but whose follow-up may be missing (a crash between the two) makes
// sure of it.
func (d *Deliverer) unclaimed(ctx context.Context, t webhook.Task, del webhook.Delivery, out *outbox, from int, now time.Time) error {
	switch {
	case del.Series != t.Series:
	case del.Status == webhook.DeliveryPending && del.Attempt == t.Attempt-1:
		// Claimed by another task of the same attempt, which may be sending it now or may have
		// crashed: this one waits, and sends if that claim runs out.
		out.add(d.wait(t, now, time.Second), from)
	case del.Status == webhook.DeliveryPending && del.Attempt == t.Attempt && del.NextAttemptAt != nil && t.Attempt < webhook.MaxAttempts:
		out.add(webhook.Task{DeliveryID: t.DeliveryID, TeamID: t.TeamID, WebhookID: t.WebhookID, EventID: t.EventID,
			Series: t.Series, Attempt: t.Attempt + 1, Due: *del.NextAttemptAt}, from)
	case del.Status == webhook.DeliveryFailed && t.Attempt == webhook.MaxAttempts && del.Attempt == webhook.MaxAttempts && !del.Test:
		// The series ended; make sure a pending alert goes out.
		return d.alert(ctx, logFor(d.Logger, t), del)
	case del.Status == webhook.DeliverySucceeded && del.Attempt == t.Attempt && len(del.Attempts) > 0:
		// The success was recorded but the slots' release that notes it may have failed, and the
		// deactivation rule must see it.
		return d.Store.NoteSuccess(ctx, del.TeamID, del.WebhookID, del.Attempts[len(del.Attempts)-1].At)
	}
	return nil
}

// record records the attempt c made, and queues the next one or ends the series.
func (d *Deliverer) record(ctx context.Context, c *claimed, out *outbox, from int) error {
	t, del, a := c.task, c.del, c.attempt
	log := logFor(d.Logger, t).With(slog.Int("status_code", a.StatusCode), slog.Int64("duration_ms", a.DurationMs))
	a.ResponseBody = "" // the log keeps it; the delivery's own list stays small
	if t.Attempt == 1 {
		del.FirstAttemptAt = c.at
	}
	switch {
	case c.res.OK():
		if err := d.Store.RecordAttempt(ctx, del, a, webhook.DeliverySucceeded, t.Token); err != nil {
			return ignoreConflict(err)
		}
		log.InfoContext(ctx, "delivery succeeded", slog.String("outcome", "succeeded")) // emf: DeliveryAttempts
		return nil
	case a.NextAttemptAt != nil:
		if err := d.Store.RecordAttempt(ctx, del, a, webhook.DeliveryPending, t.Token); err != nil {
			return ignoreConflict(err)
		}
		log.InfoContext(ctx, "attempt failed; retry scheduled", slog.String("outcome", "failed"), slog.String("error_class", a.ErrorClass),
			slog.Time("next_attempt_at", *a.NextAttemptAt))
		if t.Attempt == warnAfter {
			d.warn(ctx, log, del, a)
		}
		out.add(webhook.Task{DeliveryID: t.DeliveryID, TeamID: t.TeamID, WebhookID: t.WebhookID, EventID: t.EventID,
			Series: t.Series, Attempt: t.Attempt + 1, Due: *a.NextAttemptAt}, from)
		return nil
	}
	if err := d.Store.RecordAttempt(ctx, del, a, webhook.DeliveryFailed, t.Token); err != nil {
		return ignoreConflict(err)
	}
	if del.Test {
		log.InfoContext(ctx, "test delivery failed", slog.String("error_class", a.ErrorClass))
		return nil
	}
	log.WarnContext(ctx, "delivery failed: attempts exhausted", slog.String("outcome", "failed"), slog.String("error_class", a.ErrorClass))
	del.Status, del.Attempt, del.Attempts = webhook.DeliveryFailed, webhook.MaxAttempts, append(del.Attempts, a)
	return d.alert(ctx, log, del)
}

func logFor(l *slog.Logger, t webhook.Task) *slog.Logger {
	return logger(l).With(slog.String("event_id", t.EventID), slog.String("webhook_id", t.WebhookID),
		slog.String("team_id", t.TeamID), slog.String("delivery_id", t.DeliveryID), slog.Int("attempt", t.Attempt))
}

// newToken returns 16 random bytes in hex: a claim or slot holder's identity.
func newToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}
