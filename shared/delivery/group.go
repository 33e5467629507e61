package delivery

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// group is the tasks of one webhook in a batch, with what the steps found for each.
type group struct {
	d     *Deliverer
	out   *outbox
	tasks []webhook.Task
	from  []int // the batch index of each task (for the outbox)
	errs  []error
	hook  webhook.Webhook
	lane  *lane
}

// attempt is a task whose attempt the group makes, with its delivery and outcome.
type attempt struct {
	k       int // index in the group
	task    webhook.Task
	del     webhook.Delivery
	heldBy  string
	at      time.Time
	headers map[string]string // as sent
	res     webhook.Result
	rec     webhook.Attempt // as recorded
	status  string
}

// deliver runs the group's steps: load, claim, send, record, schedule.
func (g *group) deliver(ctx context.Context) {
	t0 := g.tasks[0]
	g.lane = g.d.lane(t0.TeamID, t0.WebhookID)
	var success time.Time // the group's latest successful send
	var succeeded []int
	defer func() { g.leave(ctx, success, succeeded) }()
	for k := range g.tasks {
		if g.tasks[k].Token == "" {
			g.tasks[k].Token = newToken()
		}
	}
	if g.lane.saturated(time.Now()) {
		now := clock(g.d.Now)
		for k, t := range g.tasks {
			g.errs[k] = g.d.park(ctx, t, now, webhook.HeldBound)
		}
		return
	}
	if !g.waitDue(ctx) {
		return
	}
	dels, ok := g.load(ctx)
	if !ok {
		return
	}
	ready := g.claim(ctx, dels)
	if g.hook.ID == "" {
		g.cancel(ctx, ready)
		return
	}
	success, succeeded = g.sendAll(ctx, ready)
	sent, unsent := g.made(ctx, ready)
	if ctx.Err() != nil {
		g.release(ctx, unsent)
	}
	g.record(ctx, sent)
}

// waitDue waits for the group's tasks due within the second; false when ctx ended first (every
// task then fails).
func (g *group) waitDue(ctx context.Context) bool {
	var due time.Time
	for _, t := range g.tasks {
		if t.When().After(due) {
			due = t.When()
		}
	}
	wait := due.Sub(clock(g.d.Now))
	if wait <= 0 {
		return true
	}
	select {
	case <-ctx.Done():
		for k := range g.errs {
			g.errs[k] = ctx.Err()
		}
		return false
	case <-time.After(wait):
		return true
	}
}

// load reads the webhook, its gate and the group's deliveries at once (false when it could not:
// every task then fails), and, when the lane may, takes a lease of one send beside it (firstLease),
// so that the first send needs no write of the gate after the load. A webhook gone or not active
// leaves g.hook zero.
func (g *group) load(ctx context.Context) (map[string]webhook.Delivery, bool) {
	d, t0 := g.d, g.tasks[0]
	ids := make([]string, 0, len(g.tasks))
	seen := map[string]bool{}
	for _, t := range g.tasks {
		if !seen[t.DeliveryID] {
			seen[t.DeliveryID] = true
			ids = append(ids, t.DeliveryID)
		}
	}
	taken := g.takeLease(ctx)
	w, gate, dels, err := d.Deliveries.LoadGroup(ctx, t0.TeamID, t0.WebhookID, ids)
	lease, took := <-taken
	if err != nil && !patio.IsKind(err, patio.KindNotFound) {
		if took {
			g.lane.took(lease)
		}
		for k := range g.errs {
			g.errs[k] = err
		}
		return nil, false
	}
	if err == nil && w.Status == webhook.StatusActive {
		g.hook = w
		g.lane.seed(gate, w.MaxRate)
	}
	if took {
		g.lane.took(lease)
	}
	return dels, true
}

// takeLease takes a lease of one send on the webhook's gate, when the lane may (firstLease); the
// channel yields the gate as stored after it, or closes without a value.
func (g *group) takeLease(ctx context.Context) <-chan Gate {
	out := make(chan Gate, 1)
	now := time.Now()
	if !g.lane.firstLease(now) {
		close(out)
		return out
	}
	t0 := g.tasks[0]
	go func() {
		defer close(out)
		gate, ok, err := g.d.Gates.TakeLease(ctx, t0.TeamID, t0.WebhookID, g.lane.holder, 1, now.Add(g.lane.leaseFor()), now)
		if err != nil {
			logger(g.d.Logger).DebugContext(ctx, "taking a lease of the webhook's gate failed: its first write decides",
				slog.String("webhook_id", t0.WebhookID), slog.String("error", err.Error()))
		}
		if ok {
			out <- gate
		}
	}()
	return out
}

// claim decides, for each task, whether its attempt is to be made: a stale or duplicate task is
// dropped (or makes sure of what follows an attempt already recorded), one whose attempt another
// worker claims waits, and one that may be a copy (queued again by the sweep or a second dispatch,
// or handled late) claims its attempt first. It returns the attempts to make.
func (g *group) claim(ctx context.Context, dels map[string]webhook.Delivery) []*attempt {
	d := g.d
	now := clock(d.Now)
	var (
		ready []*attempt
		mu    sync.Mutex
		wg    sync.WaitGroup
	)
	for k, t := range g.tasks {
		del, ok := dels[t.DeliveryID]
		switch {
		case !ok:
			logFor(d.Logger, t).WarnContext(ctx, "task for an unknown delivery dropped")
		case del.Status != webhook.DeliveryPending || del.Series != t.Series || del.Attempt != t.Attempt-1:
			g.errs[k] = d.unclaimed(ctx, t, del, g.out, g.from[k], now)
		case del.Claim != "" && del.Claim != t.Token && del.ClaimUntil.After(now):
			// Another task of the same attempt may be sending it now, or may have crashed: this
			// one waits, and sends if that claim runs out.
			g.out.add(d.wait(t, now, time.Second, ""), g.from[k])
		case t.Copy || now.Sub(t.Due) >= d.unclaimedFor():
			wg.Go(func() {
				del, ok, err := d.Deliveries.ClaimDelivery(ctx, t.DeliveryID, t.Series, t.Attempt, t.Token, now, now.Add(d.claimFor()))
				switch {
				case err != nil && patio.IsKind(err, patio.KindNotFound):
					logFor(d.Logger, t).WarnContext(ctx, "task for an unknown delivery dropped")
				case err != nil:
					g.errs[k] = err
				case !ok:
					g.errs[k] = d.unclaimed(ctx, t, del, g.out, g.from[k], now)
				default:
					mu.Lock()
					ready = append(ready, &attempt{k: k, task: t, del: del})
					mu.Unlock()
				}
			})
		default:
			mu.Lock()
			ready = append(ready, &attempt{k: k, task: t, del: del})
			mu.Unlock()
		}
	}
	wg.Wait()
	return ready
}

// cancel cancels the deliveries of attempts due to a webhook gone or no longer active.
func (g *group) cancel(ctx context.Context, ready []*attempt) {
	for _, a := range ready {
		logFor(g.d.Logger, a.task).InfoContext(ctx, "delivery cancelled: webhook not active")
		_, err := g.d.Rules.SetDeliveryStatus(ctx, a.task.DeliveryID, []string{webhook.DeliveryPending}, webhook.DeliveryCancelled, false)
		g.errs[a.k] = ignoreConflict(err)
	}
}

// sendAll sends the ready attempts side by side, as the lane admits them, and returns the latest
// successful send and which attempts succeeded.
func (g *group) sendAll(ctx context.Context, ready []*attempt) (success time.Time, succeeded []int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(slotWait)
	for _, a := range ready {
		wg.Go(func() {
			if !g.send(ctx, a, deadline) || !a.res.OK() {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			succeeded = append(succeeded, a.k)
			if a.at.After(success) {
				success = a.at
			}
		})
	}
	wg.Wait()
	return success, succeeded
}

// send waits for the webhook's lane to admit the attempt and makes it (true), or puts the task
// back: to the queue, or parked when the webhook is slow.
func (g *group) send(ctx context.Context, a *attempt, deadline time.Time) bool {
	d := g.d
	adm := g.lane.admit(ctx, deadline)
	if !adm.ok {
		now := clock(d.Now)
		switch {
		case adm.slow:
			g.errs[a.k] = d.park(ctx, a.task, now, adm.reason)
		default:
			g.errs[a.k] = g.putBack(ctx, a, now, adm)
		}
		return false
	}
	a.heldBy = a.task.HeldBy
	if adm.heldBy != "" {
		a.heldBy = adm.heldBy
	}
	at := clock(d.Now)
	headers := webhook.Headers(a.del.EventID, a.del.Payload, g.hook.KeysAt(at), at)
	if retry, held := g.lane.cancel(adm, time.Now()); held {
		g.errs[a.k] = g.putBack(ctx, a, at, admission{retry: retry, reason: webhook.HeldRetryAfter})
		return false
	}
	start := time.Now()
	a.at, a.headers = at, headers
	a.res = d.Sender.Send(ctx, g.hook.URL, headers, a.del.Payload)
	g.lane.put(ctx, adm.lent, a.at, time.Since(start), a.res)
	return true
}

// putBack puts a task that its webhook holds back on the queue, to be tried again about when the
// lane said. A wait long enough for the sweep to take the attempt as lost also moves the
// delivery's due time there (with a note of why), so that the sweep leaves it alone meanwhile.
func (g *group) putBack(ctx context.Context, a *attempt, now time.Time, adm admission) error {
	d := g.d
	t := d.wait(a.task, now, adm.retry, adm.reason)
	logFor(d.Logger, a.task).InfoContext(ctx, "attempt held by its webhook", slog.String("held_by", adm.reason),
		slog.Time("retry_at", t.NotBefore))
	if t.NotBefore.Sub(a.task.Due) >= d.unclaimedFor() {
		if err := d.Deliveries.ParkDelivery(ctx, a.task.DeliveryID, a.task.Series, a.task.Attempt, a.task.Token, t.NotBefore, adm.reason); err != nil {
			return err
		}
	}
	g.out.add(t, g.from[a.k])
	return nil
}

// made splits the ready attempts into those sent, to record, and those not made.
func (g *group) made(ctx context.Context, ready []*attempt) (sent, unsent []*attempt) {
	for _, a := range ready {
		switch {
		case a.at.IsZero():
			unsent = append(unsent, a)
		case ctx.Err() != nil && a.res.StatusCode == 0:
			// Our own stop cut the send short, not the receiver: the attempt is not made,
			// and the task coming back (the sweep's copy) makes it.
			unsent = append(unsent, a)
		default:
			sent = append(sent, a)
		}
	}
	return sent, unsent
}

// release ends the claims of attempts a stopping worker did not make, so that the copies the sweep
// queues again go out at once instead of waiting for the claims to run out (Deliverer.claimFor).
func (g *group) release(ctx context.Context, unsent []*attempt) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	now := clock(g.d.Now)
	var wg sync.WaitGroup
	for _, a := range unsent {
		wg.Go(func() {
			_, _, _ = g.d.Deliveries.ClaimDelivery(ctx, a.task.DeliveryID, a.task.Series, a.task.Attempt, a.task.Token, now, now.Add(-time.Millisecond))
		})
	}
	wg.Wait()
}

// record records the attempts made, many at once, then schedules what follows each.
func (g *group) record(ctx context.Context, sent []*attempt) {
	if len(sent) == 0 {
		return
	}
	d := g.d
	recs := make([]Record, len(sent))
	for i, a := range sent {
		a.rec, a.status = d.outcome(a, g.lane.holdEnd())
		del := a.del
		if a.task.Attempt == 1 {
			del.FirstAttemptAt = a.at
		}
		recs[i] = Record{Delivery: del, Attempt: a.rec, Status: a.status, Token: a.task.Token}
	}
	errs := d.Deliveries.RecordAttempts(ctx, recs, clock(d.Now))
	var wg sync.WaitGroup
	for i, a := range sent {
		if errs[i] != nil {
			g.errs[a.k] = ignoreConflict(errs[i])
			continue
		}
		wg.Go(func() { g.errs[a.k] = g.schedule(ctx, a) })
	}
	wg.Wait()
}

// schedule queues the next attempt of a recorded failure, or ends the series: the warning after
// the 4th failed attempt, the deactivation rule after the last.
func (g *group) schedule(ctx context.Context, a *attempt) error {
	d, t, rec := g.d, a.task, a.rec
	log := logFor(d.Logger, t).With(slog.Int("status_code", rec.StatusCode), slog.Int64("duration_ms", rec.DurationMs))
	if a.res.Reason != "" {
		log = log.With(slog.String("reason", a.res.Reason)) // why an attempt got no answer
	}
	if rec.HeldBy != "" {
		log = log.With(slog.String("held_by", rec.HeldBy), slog.Int64("held_ms", rec.HeldMs))
	}
	switch a.status {
	case webhook.DeliverySucceeded:
		log.InfoContext(ctx, "delivery succeeded", slog.String("outcome", "succeeded")) // emf: DeliveryAttempts
		return nil
	case webhook.DeliveryPending:
		log.InfoContext(ctx, "attempt failed; retry scheduled", slog.String("outcome", "failed"), slog.String("error_class", rec.ErrorClass),
			slog.Time("next_attempt_at", *rec.NextAttemptAt))
		if t.Attempt == warnAfter {
			del := a.del
			if t.Attempt == 1 {
				del.FirstAttemptAt = a.at
			}
			d.warn(ctx, log, del, rec)
		}
		g.out.add(webhook.Task{DeliveryID: t.DeliveryID, TeamID: t.TeamID, WebhookID: t.WebhookID, EventID: t.EventID,
			Series: t.Series, Attempt: t.Attempt + 1, Due: *rec.NextAttemptAt}, g.from[a.k])
		return nil
	}
	if a.del.Test {
		log.InfoContext(ctx, "test delivery failed", slog.String("error_class", rec.ErrorClass))
		return nil
	}
	log.WarnContext(ctx, "delivery failed: attempts exhausted", slog.String("outcome", "failed"), slog.String("error_class", rec.ErrorClass))
	del := a.del
	if t.Attempt == 1 {
		del.FirstAttemptAt = a.at
	}
	rec.ResponseBody = ""
	del.Status, del.Attempt, del.Attempts = webhook.DeliveryFailed, webhook.MaxAttempts, append(del.Attempts, rec)
	return d.alert(ctx, log, del)
}

// leave hands the lane back with the group's latest success; when that fails, the tasks whose
// sends succeeded fail with it.
func (g *group) leave(ctx context.Context, success time.Time, succeeded []int) {
	if err := g.lane.leave(ctx, success); err != nil {
		for _, k := range succeeded {
			if g.errs[k] == nil {
				g.errs[k] = err
			}
		}
	}
}
