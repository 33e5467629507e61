package delivery

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// lane paces one webhook's sends within this process. It keeps the webhook's Gate as last read or
// written, leases part of the gate's bound in the store and lends it to sends one at a time, waits
// out the gate's hold, and takes the starts the webhook's max_rate allows in blocks reserved in the
// store. The answers of its sends move the bound here at once, and in the store at its next write:
// when a send is held (at once), every syncEvery while it works, and when its last batch is done
// (the lease goes back then: a Lambda function frozen between invocations holds none). Its times
// are the machine's clock (waits and leases are about time passing), not the Deliverer's Now.
type lane struct {
	d                 *Deliverer
	teamID, webhookID string
	holder            string // this process's identity in the gate's leases

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever a send may start
	users   int           // batches working with the lane
	gate    Gate          // as last read or written
	seeded  bool
	synced  time.Time // when the gate was last written
	syncing bool      // one goroutine writes the gate at a time
	nextTry time.Time // when to ask the store again after it granted nothing more
	lease   int       // what the gate's lease lets this process have in flight
	// answers are those not yet written to the gate; bound is the gate's bound after them.
	answers  []webhook.Result
	bound    int
	hold     time.Time // the later of the gate's hold and those this process saw
	holdNew  bool      // a hold not yet written
	rate     webhook.Rate
	starts   time.Time // the earliest next start under the max_rate, in the block reserved...
	startsTo time.Time // ...which ends here
	success  time.Time // the latest success not yet written
	inFlight int
	waiting  int
	sendTime time.Duration // how long a send takes, on average (moving)
	lentAt   []time.Time   // when each send in flight started (or starts, under a max_rate)
	// busyUntil: while set, the webhook is taken as slow (see admit).
	busyUntil time.Time
	// strainedAt is when an answer last said the receiver struggles (a timeout, a network error, a
	// 5xx or a 429).
	strainedAt time.Time
}

// Timings of a lane.
const (
	// syncEvery is how often a working lane writes the gate: its answers reach the other workers'
	// bound, and its lease is renewed, at least this often.
	syncEvery = time.Second
	// slowSend: a webhook is slow, while every send it may have is out, when its sends take this
	// long or more (on average, or the oldest of those in flight) and its receiver said it
	// struggles within strainedFor. Its excess attempts are then parked rather than left to wait
	// for sends that may take their whole timeout. A receiver that answers, however slowly, is
	// waited for (its attempts going back to the queue for about as long as the sends ahead of
	// them have taken so far).
	slowSend    = time.Second
	strainedFor = 30 * time.Second
	// busyFor is how long a webhook found slow is taken as slow by this process.
	busyFor = time.Second
)

// lane returns the lane of a webhook, entered (leave it when done).
func (d *Deliverer) lane(teamID, webhookID string) *lane {
	v, _ := d.lanes.LoadOrStore(webhookID, &lane{d: d, teamID: teamID, webhookID: webhookID,
		holder: newToken(), changed: make(chan struct{}), bound: InitialBound})
	l := v.(*lane)
	l.mu.Lock()
	l.users++
	l.mu.Unlock()
	return l
}

// leaseFor is how long a lease lasts in the store before it must be renewed.
func (l *lane) leaseFor() time.Duration {
	return 2*l.d.timeout() + 10*time.Second
}

// seed takes the gate as a batch loaded it, when it is newer than the lane's, and the webhook's
// max_rate.
func (l *lane) seed(g Gate, rate webhook.Rate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate = rate
	if !l.seeded || g.Version > l.gate.Version {
		l.adopt(g)
	}
	l.seeded = true
}

// firstLease reports whether the batch that entered the lane last may take a lease of one send
// without reading the gate (Gates.TakeLease), beside its load: when it is the lane's only user
// and the lane holds no lease, nor is writing the gate. The first send then goes out a round
// sooner; any lease beyond it is had through sync.
func (l *lane) firstLease(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.users == 1 && !l.syncing && l.inFlight == 0 && (l.lease == 0 || !l.gate.Leases[l.holder].Until.After(now))
}

// took adopts the gate TakeLease returned (unless the load read a later one), its lease this
// process's; the take counts as a write of the gate (syncEvery runs from it).
func (l *lane) took(g Gate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.seeded || g.Version > l.gate.Version {
		l.adopt(g)
	}
	l.synced = time.Now()
}

// adopt makes g the lane's gate. The caller holds mu.
func (l *lane) adopt(g Gate) {
	l.gate = g
	l.bound = g.bound()
	for _, res := range l.answers {
		l.bound = Adjust(l.bound, res)
	}
	if g.Hold.After(l.hold) {
		l.hold = g.Hold
	}
	if n := g.Leases[l.holder]; n.Until.After(time.Now()) {
		l.lease = n.N
	} else {
		l.lease = 0
	}
	l.signal()
}

// signal wakes the waiting sends. The caller holds mu.
func (l *lane) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// capacity is how many sends this process may have in flight at now. The caller holds mu.
func (l *lane) capacity(now time.Time) int {
	return max(0, min(l.lease, l.bound-l.gate.others(l.holder, now)))
}

// saturated reports whether the webhook was found slow lately and nothing may be sent now: a batch
// then parks its tasks at once instead of waiting.
func (l *lane) saturated(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inFlight >= l.capacity(now) && now.Before(l.busyUntil)
}

// admission is what admit decided for one send.
type admission struct {
	ok bool
	// Without ok: slow means the webhook is slow (park the attempt); otherwise the attempt waits
	// about retry, held by reason (one of the webhook.Held* reasons).
	slow   bool
	retry  time.Duration
	reason string
	// With ok: heldBy is what made the send wait in its worker (the last reason), "" if nothing;
	// lent is when the send was counted to start (see lend, cancel).
	heldBy string
	lent   time.Time
}

// admit waits until a send may start now (ok), or until deadline or ctx's end. A send may start
// when the webhook is not held, this process has one of its lease free, and, under a max_rate, a
// start reserved for now. It gives up at once when the webhook is slow, and when what is ahead of
// the send (a hold, the sends waiting at the webhook's recent pace, the next reserved start) ends
// after deadline.
func (l *lane) admit(ctx context.Context, deadline time.Time) admission {
	pause := 20 * time.Millisecond
	heldBy := ""
	l.mu.Lock()
	l.waiting++
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	for {
		now := time.Now()
		st := l.look(ctx, now, deadline, pause, &heldBy)
		if st.done {
			return st.adm
		}
		if st.again {
			continue
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return admission{retry: time.Second, reason: heldBy}
		case <-changed:
		case <-time.After(min(st.wake, max(deadline.Sub(now), time.Millisecond))):
		}
		pause = min(2*pause, 200*time.Millisecond)
		l.mu.Lock()
	}
}

// step is what one look at the lane decided for a waiting send: its admission (done, mu
// released), another look at once (again), or a look after a change of the lane or wake.
type step struct {
	adm   admission
	done  bool
	again bool
	wake  time.Duration
}

// look is one look at the lane for a send admit holds, at now; heldBy is what made it wait last.
// The caller holds mu; look releases it only with done.
func (l *lane) look(ctx context.Context, now, deadline time.Time, pause time.Duration, heldBy *string) step {
	switch room := l.capacity(now); {
	case now.Before(l.hold):
		if l.hold.After(deadline) {
			l.mu.Unlock()
			return step{done: true, adm: admission{retry: l.hold.Sub(now), reason: webhook.HeldRetryAfter}}
		}
		*heldBy = webhook.HeldRetryAfter
		return step{wake: l.hold.Sub(now)}
	case l.inFlight < room && l.rate > 0 && l.nextStart(now).Add(spacing(l.rate)).After(l.startsTo):
		// The block reserved under the max_rate is used up: another must be reserved first.
		if l.syncing || now.Before(l.nextTry) {
			return step{wake: pause}
		}
		l.sync(ctx)
		return step{again: true}
	case l.inFlight < room && l.rate > 0:
		return l.startUnderRate(ctx, now, deadline, heldBy)
	case l.inFlight < room:
		l.lend(now)
		l.mu.Unlock()
		return step{done: true, adm: admission{ok: true, heldBy: *heldBy, lent: now}}
	case l.syncing:
		// A write of the gate under way may grant more, or tell more: wait for it.
		return step{wake: pause}
	default:
		return l.lookAtBound(ctx, now, deadline, room, pause, heldBy)
	}
}

// startUnderRate takes the next start the max_rate allows and waits for it, unless it comes after
// deadline; a hold asked for meanwhile gives the start up (again).
func (l *lane) startUnderRate(ctx context.Context, now, deadline time.Time, heldBy *string) step {
	start := l.nextStart(now)
	if start.After(deadline) {
		l.mu.Unlock()
		return step{done: true, adm: admission{retry: start.Sub(now), reason: webhook.HeldMaxRate}}
	}
	l.starts = start.Add(spacing(l.rate))
	l.lend(start)
	wait := start.Sub(now)
	if wait <= 0 {
		l.mu.Unlock()
		return step{done: true, adm: admission{ok: true, heldBy: *heldBy, lent: start}}
	}
	if wait >= quickAnswer {
		*heldBy = webhook.HeldMaxRate
	}
	l.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(wait):
	}
	l.mu.Lock()
	if !time.Now().Before(l.hold) {
		l.mu.Unlock()
		return step{done: true, adm: admission{ok: true, heldBy: *heldBy, lent: start}}
	}
	// A receiver asked for a pause meanwhile: the start is given up.
	l.unlend(start)
	return step{again: true}
}

// lookAtBound is a look when this process's lease is all in flight: ask the gate for more, wait
// for the sends ahead, or give up (the webhook slow, or the wait past deadline).
func (l *lane) lookAtBound(ctx context.Context, now, deadline time.Time, room int, pause time.Duration, heldBy *string) step {
	// More may be had when the bound left some over, or, every syncEvery, when others gave
	// theirs back meanwhile.
	short := l.lease < l.inFlight+l.waiting
	left := l.bound-l.gate.others(l.holder, now) > l.lease
	if short && (left || now.Sub(l.synced) >= syncEvery) && !now.Before(l.nextTry) {
		l.sync(ctx)
		return step{again: true}
	}
	if short && left && l.nextTry.Before(deadline) {
		// The bound has room this process has not asked for yet (it pauses between two writes
		// of the gate): the send waits to ask, rather than be judged on the lease held now,
		// which says neither that the bound is all in flight nor how long the sends ahead take.
		// (A batch that comes right after the last one gave its lease back would otherwise send
		// its excess attempts back to the queue, even those of a slow webhook, which are to be
		// parked.)
		return step{wake: l.nextTry.Sub(now)}
	}
	full := room > 0 && l.inFlight >= room
	oldest := time.Duration(0) // how long the oldest send in flight has been out
	if len(l.lentAt) > 0 {
		oldest = max(now.Sub(slices.MinFunc(l.lentAt, time.Time.Compare)), 0)
	}
	strained := !l.strainedAt.IsZero() && now.Sub(l.strainedAt) < strainedFor
	slow := strained && (oldest >= slowSend || l.sendTime >= slowSend)
	if now.Before(l.busyUntil) || (full && slow) {
		if !now.Before(l.busyUntil) {
			l.busyUntil = now.Add(busyFor)
		}
		l.mu.Unlock()
		return step{done: true, adm: admission{slow: true, reason: webhook.HeldBound}}
	}
	// The sends ahead take at least as long as the oldest has been out.
	expected := time.Duration(l.waiting) * max(l.sendTime, oldest) / time.Duration(max(room, 1))
	if !now.Before(deadline) || now.Add(expected).After(deadline) {
		l.mu.Unlock()
		return step{done: true, adm: admission{retry: max(expected, time.Second), reason: webhook.HeldBound}}
	}
	*heldBy = webhook.HeldBound
	return step{wake: pause}
}

// nextStart returns when the next send may start under the max_rate: as soon as the block this
// process reserved allows (its first start, then a spacing after the previous one), not before
// now. A start is taken only when a spacing still separates it from the block's end, where the
// next block (maybe another worker's) begins: so any two starts of the webhook, of any workers,
// are a spacing apart, and no one-second window holds more than the rate. The caller holds mu.
func (l *lane) nextStart(now time.Time) time.Time {
	if l.starts.Before(now) {
		return now
	}
	return l.starts
}

// lend counts a send that starts at at (now, or its start under the max_rate: waiting for it is
// no slowness of the receiver's). The caller holds mu.
func (l *lane) lend(at time.Time) {
	l.inFlight++
	l.lentAt = append(l.lentAt, at)
}

// cancel gives back an admission whose send has not started yet when a receiver asked for a pause
// since it was granted (a hold begun, or begun anew): true then, and the send must not start. It
// is the last look before a request goes out, which narrows the time in which a request may still
// start after a hold to that of one answer's handling.
func (l *lane) cancel(adm admission, now time.Time) (retry time.Duration, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !now.Before(l.hold) {
		return 0, false
	}
	l.unlend(adm.lent)
	return l.hold.Sub(now), true
}

// unlend takes back a send counted by lend(at) that did not start. The caller holds mu.
func (l *lane) unlend(at time.Time) {
	l.done(at)
	l.signal()
}

// done ends the count of the send lent at at: its own entry leaves lentAt, whatever the order in
// which sends end (an entry left behind would make the lane look slow for ever). The caller
// holds mu.
func (l *lane) done(at time.Time) {
	l.inFlight--
	if i := slices.IndexFunc(l.lentAt, at.Equal); i >= 0 {
		l.lentAt = slices.Delete(l.lentAt, i, i+1)
	}
}

// put ends a send lent at lent and made at at (the Deliverer's clock) that took took and got res:
// the bound moves at once, a hold starts, and the gate is written when a hold is new or the last
// write is syncEvery old.
func (l *lane) put(ctx context.Context, lent, at time.Time, took time.Duration, res webhook.Result) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done(lent)
	if l.sendTime == 0 {
		l.sendTime = took
	} else {
		l.sendTime += (took - l.sendTime) / 4
	}
	if moves := Adjust(MaxBound/2, res) != MaxBound/2; moves {
		// Only what Adjust reads is kept until the write.
		l.answers = append(l.answers, webhook.Result{StatusCode: res.StatusCode, Duration: res.Duration, ErrorClass: res.ErrorClass})
		l.bound = Adjust(l.bound, res)
	}
	if strained(res) {
		l.strainedAt = now
	}
	if until, ok := HoldUntil(res, now); ok && until.After(l.hold) {
		l.hold, l.holdNew = until, true
		logger(l.d.Logger).InfoContext(ctx, "webhook held: its receiver asked for a pause",
			slog.String("webhook_id", l.webhookID), slog.Int("status_code", res.StatusCode),
			slog.Time("held_until", until), slog.Int("bound", l.bound))
	}
	if res.OK() && at.After(l.success) {
		// The success is written with the next write of the gate (flush, leave or a sync).
		l.success = at
	}
	l.signal()
	if !l.syncing && (l.holdNew || now.Sub(l.synced) >= syncEvery) {
		l.sync(ctx)
	}
}

// sync writes the lane's state to the gate: its answers, hold and success, the lease it needs
// (none when its last batch is done), and, under a max_rate, a block of starts. On a lost race it
// reads the gate as stored and applies itself to that, a few times. The caller holds mu; sync
// releases it while it waits for the store.
func (l *lane) sync(ctx context.Context) {
	l.syncing = true
	defer func() {
		l.syncing = false
		l.signal()
	}()
	ctx = context.WithoutCancel(ctx)
	for range 5 {
		now := time.Now()
		c := change{holder: l.holder, answers: l.answers, hold: l.hold, success: l.success,
			inFlight: l.inFlight, want: l.inFlight + l.waiting, release: l.users == 0, leaseFor: l.leaseFor(), rate: l.rate}
		switch {
		case c.release:
			c.unusedFrom, c.unusedTo = l.nextStart(now), l.startsTo
		case l.rate > 0 && l.waiting > 0 && l.nextStart(now).Add(spacing(l.rate)).After(l.startsTo):
			c.starts = min(l.waiting, int(l.rate))
		}
		next, first, after := l.gate.apply(c, now)
		next.Version = l.gate.Version
		answers := len(l.answers)
		l.mu.Unlock()
		stored, ok, err := l.d.Gates.SwapGate(ctx, l.teamID, l.webhookID, next)
		l.mu.Lock()
		if err != nil {
			logger(l.d.Logger).WarnContext(ctx, "writing the webhook's gate failed", slog.String("webhook_id", l.webhookID),
				slog.String("error", err.Error()))
			l.nextTry = time.Now().Add(200 * time.Millisecond)
			return
		}
		if !ok {
			l.adopt(stored)
			continue
		}
		l.answers = l.answers[answers:]
		if !l.success.After(c.success) {
			l.success = time.Time{}
		}
		if !l.hold.After(c.hold) {
			l.holdNew = false
		}
		if c.starts > 0 {
			l.starts, l.startsTo = first, after
		} else if c.release {
			l.starts, l.startsTo = time.Time{}, time.Time{}
		}
		granted := l.lease
		l.adopt(stored)
		l.synced = time.Now()
		if c.starts == 0 && l.lease <= granted {
			// Nothing more to be had for now: do not ask again at once.
			l.nextTry = l.synced.Add(20 * time.Millisecond)
		}
		return
	}
	l.nextTry = time.Now().Add(50 * time.Millisecond)
}

// holdEnd returns until when the webhook is held, as far as this process knows.
func (l *lane) holdEnd() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hold
}

// flush writes the latest success this process saw now (the deactivation rule is about to read
// it).
func (l *lane) flush(ctx context.Context) error {
	l.mu.Lock()
	success := l.success
	l.mu.Unlock()
	if success.IsZero() {
		return nil
	}
	if err := l.d.Gates.NoteSuccess(ctx, l.teamID, l.webhookID, success); err != nil {
		return err
	}
	l.mu.Lock()
	if !l.success.After(success) {
		l.success = time.Time{}
	}
	l.mu.Unlock()
	return nil
}

// leave ends a batch's use of the lane, which saw its latest successful send at success (or
// zero): the last batch out writes the gate, giving the lease back with the answers and the
// success. An error means the success may not be in the store (the deactivation rule must see
// it): the caller keeps the messages of its successful sends, whose handling again notes it.
func (l *lane) leave(ctx context.Context, success time.Time) error {
	ctx = context.WithoutCancel(ctx)
	l.mu.Lock()
	l.users--
	if l.users > 0 {
		l.mu.Unlock()
		return nil
	}
	for l.syncing {
		changed := l.changed
		l.mu.Unlock()
		<-changed
		l.mu.Lock()
	}
	if l.users > 0 {
		l.mu.Unlock()
		return nil
	}
	l.sync(ctx)
	left := l.success
	l.mu.Unlock()
	if left.IsZero() || success.IsZero() {
		return nil
	}
	// The gate could not be written: the lease ends on its own; the success must be noted.
	return l.d.Gates.NoteSuccess(ctx, l.teamID, l.webhookID, left)
}
