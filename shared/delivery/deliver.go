package delivery

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// warnAfter is the failed attempt of a series after which the team is warned: the 4th, two before
// the webhook would be disabled.
const warnAfter = 4

// Timings of the deliverer.
const (
	// slotWait bounds how long an attempt waits in its worker for its webhook (a free place under
	// its bound, the end of a short hold, its start under a max_rate) before it goes back to the
	// queue; it goes back at once when what is ahead of it would take longer (see lane.admit).
	slotWait = 5 * time.Second
	// maxWait bounds the delay of a task put back because its webhook was busy.
	maxWait = 60 * time.Second
	// heldNote is how late an attempt must go out, held by its webhook, for its record to say so.
	heldNote = time.Second
)

// Deliverer makes the attempts queued tasks describe, records them, and schedules the next ones or
// ends the series (applying the deactivation rule). Use it through a pointer: it keeps, per
// webhook, the lane that paces its sends.
//
// The tasks of a batch are handled by webhook, each webhook's group on its own (one slow or
// failing receiver never delays another webhook), in four steps: load (the webhook, its gate and
// the deliveries in one read), claim (only the attempts a copy of their task may be making too),
// send (each send paced by the webhook's lane: its adaptive bound, a receiver's Retry-After, its
// max_rate, across every worker through the gate in the store), and record (the group's attempts
// in as few writes as the store allows), after which the next attempts are scheduled. An attempt
// that cannot go out within slotWait goes back to the queue, delayed about as long as what is
// ahead of it; one of a slow webhook (its sends take long) is parked: off the queue, its delivery
// pending with its due time reset, for the sweep to queue again in a few minutes. Either way it
// waits its turn without holding a worker.
type Deliverer struct {
	Deliveries Deliveries
	Gates      Gates
	Rules      Rules
	Queue      Queue
	Sender     Sender
	Mailer     Mailer
	Teams      Teams
	Schedule   webhook.Schedule
	// Timeout is the sender's timeout (how long one attempt may take); it sets how long leases
	// last. webhook.DefaultTimeout when zero.
	Timeout time.Duration
	// SweepAfter is how overdue the sweep lets an attempt get before it queues it again
	// (webhook.DefaultSweepAfter when zero). An attempt handled well within it, whose task is no
	// copy, is sent without a claim: the sweep cannot have queued it again yet.
	SweepAfter time.Duration
	Now        func() time.Time
	Logger     *slog.Logger
	// ConsoleURL is where people sign in to the console (CONSOLE_URL): the warning and alert
	// emails link to the webhook's page there ("" names the page without a link).
	ConsoleURL string

	lanes sync.Map // webhook id → *lane
}

func (d *Deliverer) timeout() time.Duration {
	if d.Timeout <= 0 {
		return webhook.DefaultTimeout
	}
	return d.Timeout
}

// claimFor is how long a claim on an attempt lasts: its wait for the lane (slotWait), the send
// (the timeout) and its record, with the timeout once more and 10 s to spare (25 s with the 5 s
// timeout). A crashed claimant holds its attempt no longer than that: the sweep's copy, waiting
// on the claim, sends it once the claim has run out. A claimed task put back on the queue may
// come back after its claim ran out; it claims again with its own token, and a copy that claimed
// meanwhile makes the attempt instead (the put-back task then finds it claimed, or recorded). A
// wait long enough for the sweep moves the delivery's due time first (putBack, park), so no copy
// is queued while the task waits.
func (d *Deliverer) claimFor() time.Duration {
	return slotWait + 2*d.timeout() + 10*time.Second
}

// unclaimedFor is how long after its due time an attempt may go out without a claim: half of what
// the sweep leaves once a send has had its whole timeout, so that the attempt is recorded long
// before the sweep could queue it again.
func (d *Deliverer) unclaimedFor() time.Duration {
	after := d.SweepAfter
	if after <= 0 {
		after = webhook.DefaultSweepAfter
	}
	return (after - d.timeout()) / 2
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
		groups = map[string][]int{} // webhook id → its tasks due now
		order  []string
	)
	out := &outbox{}
	now := clock(d.Now)
	for i, t := range tasks {
		if t.When().Sub(now) >= time.Second {
			logFor(d.Logger, t).DebugContext(ctx, "attempt not due yet: hop", slog.Time("due", t.When()))
			out.add(t, i)
			continue
		}
		if _, ok := groups[t.WebhookID]; !ok {
			order = append(order, t.WebhookID)
		}
		groups[t.WebhookID] = append(groups[t.WebhookID], i)
	}
	var wg sync.WaitGroup
	for _, id := range order {
		wg.Go(func() {
			g := &group{d: d, out: out, from: groups[id]}
			for _, i := range g.from {
				g.tasks = append(g.tasks, tasks[i])
			}
			g.errs = make([]error, len(g.tasks))
			g.deliver(ctx)
			for k, i := range g.from {
				errs[i] = g.errs[k]
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

// outcome returns the attempt a made as it is recorded, and the delivery's status after it. A
// failed attempt's next one is due at its slot of the schedule or, when the webhook is held (a
// Retry-After), at the end of the hold, whichever is later.
func (d *Deliverer) outcome(a *attempt, hold time.Time) (webhook.Attempt, string) {
	t, res := a.task, a.res
	rec := webhook.Attempt{Series: t.Series, N: t.Attempt, At: a.at, StatusCode: res.StatusCode,
		DurationMs: res.Duration.Milliseconds(), ErrorClass: res.ErrorClass, ResponseBody: res.Body, Headers: a.headers}
	if late := a.at.Sub(t.Due); a.heldBy != "" && late >= heldNote {
		rec.HeldBy, rec.HeldMs = a.heldBy, late.Milliseconds()
	}
	switch {
	case res.OK():
		return rec, webhook.DeliverySucceeded
	case t.Attempt < webhook.MaxAttempts && !a.del.Test:
		due := a.at.Add(d.Schedule.Before(t.Attempt + 1))
		if until, ok := HoldUntil(res, a.at.Add(res.Duration)); ok && until.After(hold) {
			hold = until
		}
		if hold.After(due) {
			due = hold
		}
		rec.NextAttemptAt = &due
		return rec, webhook.DeliveryPending
	}
	return rec, webhook.DeliveryFailed
}

// park takes a task of a slow webhook off the queue: its message is done with, and its delivery
// stays pending with its due time moved to now, so that the sweep queues its attempt again in a few
// minutes. The attempts a slow webhook's bound allows go on meanwhile; a queue full of its waiting
// tasks would slow every other webhook's (each message costs every queue operation something).
func (d *Deliverer) park(ctx context.Context, t webhook.Task, now time.Time, reason string) error {
	logFor(d.Logger, t).InfoContext(ctx, "attempt parked: webhook slow", slog.String("held_by", reason))
	return d.Deliveries.ParkDelivery(ctx, t.DeliveryID, t.Series, t.Attempt, t.Token, now, reason)
}

// wait returns t put back to wait for its webhook about retry (at least a second), doubled after each
// earlier wait, up to maxWait, jittered so that waiting tasks do not come back together; reason
// (when not "") is why, for its attempt's record. A wait for a hold is not doubled: the hold says
// when.
func (d *Deliverer) wait(t webhook.Task, now time.Time, retry time.Duration, reason string) webhook.Task {
	delay := max(retry, time.Second)
	if reason != webhook.HeldRetryAfter {
		delay = min(delay<<min(t.Waits, 6), maxWait)
		delay = delay/2 + rand.N(delay/2+1)
	} else {
		delay += rand.N(delay/4 + 1)
	}
	t.Waits++
	t.NotBefore = now.Add(delay)
	if reason != "" {
		t.HeldBy = reason
	}
	return t
}

// unclaimed handles a task whose attempt is not to be made, given the stored delivery: a duplicate
// or stale task is dropped, one whose attempt another worker holds waits, and a task whose attempt
// was recorded but whose follow-up may be missing (a crash between the two) makes sure of it.
func (d *Deliverer) unclaimed(ctx context.Context, t webhook.Task, del webhook.Delivery, out *outbox, from int, now time.Time) error {
	switch {
	case del.Series != t.Series:
	case del.Status == webhook.DeliveryPending && del.Attempt == t.Attempt-1:
		// Claimed by another task of the same attempt, which may be sending it now or may have
		// crashed: this one waits, and sends if that claim runs out.
		out.add(d.wait(t, now, time.Second, ""), from)
	case del.Status == webhook.DeliveryPending && del.Attempt == t.Attempt && del.NextAttemptAt != nil && t.Attempt < webhook.MaxAttempts:
		out.add(webhook.Task{DeliveryID: t.DeliveryID, TeamID: t.TeamID, WebhookID: t.WebhookID, EventID: t.EventID,
			Series: t.Series, Attempt: t.Attempt + 1, Due: *del.NextAttemptAt}, from)
	case del.Status == webhook.DeliveryFailed && t.Attempt == webhook.MaxAttempts && del.Attempt == webhook.MaxAttempts && !del.Test:
		// The series ended; make sure a pending alert goes out.
		return d.alert(ctx, logFor(d.Logger, t), del)
	case del.Status == webhook.DeliverySucceeded && del.Attempt == t.Attempt && len(del.Attempts) > 0:
		// The success was recorded but the gate's write that notes it may have failed, and the
		// deactivation rule must see it.
		return d.Gates.NoteSuccess(ctx, del.TeamID, del.WebhookID, del.Attempts[len(del.Attempts)-1].At)
	}
	return nil
}

func logFor(l *slog.Logger, t webhook.Task) *slog.Logger {
	return logger(l).With(slog.String("event_id", t.EventID), slog.String("webhook_id", t.WebhookID),
		slog.String("team_id", t.TeamID), slog.String("delivery_id", t.DeliveryID), slog.Int("attempt", t.Attempt))
}

// newToken returns 16 random bytes in hex: a claim or lease holder's identity.
func newToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}
