package delivery

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// slotPool holds, for one webhook, the delivery slots this process took in the store (at most
// MaxInFlight across every process) and lends them to attempts one send at a time, so that the
// batches a process handles at once share them without asking the store for each send. The slots
// go back to the store when the last batch interested in the webhook is done: a Lambda function
// frozen between invocations holds none. Its times are the machine's clock (waits and leases are
// about time passing), not the Deliverer's Now.
type slotPool struct {
	d                 *Deliverer
	teamID, webhookID string

	mu        sync.Mutex
	changed   chan struct{}     // closed and replaced whenever a slot may have become available
	holder    string            // identity of this process's slots in the store
	held      map[int]time.Time // slot → the end of its lease in the store
	lent      int               // held slots lent to sends
	users     int               // batches working with the pool
	acquiring bool              // one goroutine asks the store at a time
	nextTry   time.Time         // when the store may be asked again after it had nothing free
	renewing  bool
	success   time.Time     // the latest successful send, for flush
	busyUntil time.Time     // while set, a get without a free slot fails at once
	waiting   int           // gets waiting for a slot
	sendTime  time.Duration // how long a send holds a slot, on average (moving)
	missed    time.Time     // since when the store has had no free slot (zero: it had one last)
	lentAt    []time.Time   // when each lent slot was lent, oldest first (sends end roughly in order)
}

// A webhook is slow when its sends take slowSend or more: on average, or the oldest of those in
// flight while every slot is taken, or when no slot came back or could be taken for that long. A
// get then gives up at once rather than wait for sends that may take their whole timeout, and its
// task is parked (see Deliverer).
const slowSend = time.Second

// pool returns the slot pool of a webhook, entered (leave it when done).
func (d *Deliverer) pool(teamID, webhookID string) *slotPool {
	v, _ := d.pools.LoadOrStore(webhookID, &slotPool{d: d, teamID: teamID, webhookID: webhookID,
		changed: make(chan struct{}), held: map[int]time.Time{}})
	p := v.(*slotPool)
	p.mu.Lock()
	p.users++
	p.mu.Unlock()
	return p
}

// lease is how long slots are held in the store before they must be renewed: a process that
// crashes holding some blocks them for no longer.
func (p *slotPool) lease() time.Duration {
	timeout := p.d.Timeout
	if timeout <= 0 {
		timeout = webhook.DefaultTimeout
	}
	return 2*timeout + 10*time.Second
}

// saturated reports whether the webhook was found busy lately and no slot is free now: a batch
// then puts its tasks back at once instead of waiting.
func (p *slotPool) saturated(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lent >= len(p.held) && now.Before(p.busyUntil)
}

// signal wakes the waiting gets. The caller holds mu.
func (p *slotPool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// get waits until a slot is lent to the caller (ok), or until deadline or ctx's end. It gives up
// at once, saying slow, when the webhook is slow (see slowSend; it is then taken as busy for busyFor)
// or was found so lately.
// It gives up at once too when the sends ahead of it, at the pace sends have been going, would not
// leave it a slot before deadline; then retry is about how long they take.
func (p *slotPool) get(ctx context.Context, deadline time.Time) (ok bool, retry time.Duration, slow bool) {
	pause := 20 * time.Millisecond
	p.mu.Lock()
	p.waiting++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		if p.lent < len(p.held) {
			p.lent++
			p.lentAt = append(p.lentAt, time.Now())
			p.mu.Unlock()
			return true, 0, false
		}
		now := time.Now()
		expected := time.Duration(0)
		full := len(p.held) == MaxInFlight || !p.missed.IsZero()
		if full {
			expected = time.Duration(p.waiting) * p.sendTime / MaxInFlight
		}
		if now.Before(p.busyUntil) {
			p.mu.Unlock()
			return false, 0, true
		}
		stuck := len(p.held) == MaxInFlight && len(p.lentAt) > 0 && now.Sub(p.lentAt[0]) >= slowSend
		refused := !p.missed.IsZero() && now.Sub(p.missed) >= slowSend
		if full && (stuck || refused || p.sendTime >= slowSend) {
			p.busyUntil = now.Add(busyFor)
			p.mu.Unlock()
			return false, 0, true
		}
		if !now.Before(deadline) || now.Add(expected).After(deadline) {
			p.mu.Unlock()
			return false, max(expected, time.Second), false
		}
		if len(p.held) < MaxInFlight && !p.acquiring && !now.Before(p.nextTry) {
			p.acquiring = true
			if len(p.held) == 0 {
				p.holder = newToken()
			}
			holder, want := p.holder, MaxInFlight-len(p.held)
			p.mu.Unlock()
			slots, err := p.d.Store.AcquireSlots(ctx, p.teamID, p.webhookID, holder, want, now, now.Add(p.lease()))
			p.mu.Lock()
			p.acquiring = false
			if err != nil {
				logger(p.d.Logger).WarnContext(ctx, "taking webhook slots failed", slog.String("webhook_id", p.webhookID),
					slog.String("error", err.Error()))
			}
			if len(slots) == 0 {
				p.nextTry = now.Add(pause)
				pause = min(2*pause, 200*time.Millisecond)
				if p.missed.IsZero() {
					p.missed = now
				}
			} else {
				p.missed = time.Time{}
			}
			for _, s := range slots {
				p.held[s] = now.Add(p.lease())
			}
			p.signal()
			p.mu.Unlock()
			continue
		}
		changed := p.changed
		p.mu.Unlock()
		wait := min(deadline.Sub(now), pause)
		select {
		case <-ctx.Done():
			return false, time.Second, false
		case <-changed:
		case <-time.After(wait):
		}
	}
}

// put gives a lent slot back after a send that took took (success: when it succeeded, else zero),
// renewing the slots in the store when their lease is half gone.
func (p *slotPool) put(ctx context.Context, took time.Duration, success time.Time) {
	p.mu.Lock()
	p.lent--
	if len(p.lentAt) > 0 {
		p.lentAt = p.lentAt[1:]
	}
	p.missed = time.Time{}
	if p.sendTime == 0 {
		p.sendTime = took
	} else {
		p.sendTime += (took - p.sendTime) / 4
	}
	if success.After(p.success) {
		p.success = success
	}
	p.signal()
	now := time.Now()
	var renew []int
	if !p.renewing {
		for s, until := range p.held {
			if until.Sub(now) < p.lease()/2 {
				renew = append(renew, s)
			}
		}
	}
	if len(renew) == 0 {
		p.mu.Unlock()
		return
	}
	p.renewing = true
	holder := p.holder
	p.mu.Unlock()
	until := now.Add(p.lease())
	kept, err := p.d.Store.RenewSlots(ctx, p.teamID, p.webhookID, holder, renew, until)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.renewing = false
	if err != nil {
		logger(p.d.Logger).WarnContext(ctx, "renewing webhook slots failed", slog.String("webhook_id", p.webhookID),
			slog.String("error", err.Error()))
		return
	}
	for _, s := range renew {
		if _, ok := p.held[s]; !ok {
			continue
		}
		if slices.Contains(kept, s) {
			p.held[s] = until
			continue
		}
		// Another process took the slot over (this one's lease ran out): it is no longer ours to
		// lend (while more are lent than held, none is lent).
		delete(p.held, s)
	}
}

// flush notes the latest successful send in the store now (the deactivation rule is about to read
// it).
func (p *slotPool) flush(ctx context.Context) error {
	p.mu.Lock()
	success := p.success
	p.mu.Unlock()
	if success.IsZero() {
		return nil
	}
	return p.d.Store.NoteSuccess(ctx, p.teamID, p.webhookID, success)
}

// leave ends a batch's use of the pool and notes the batch's latest successful send (success, or
// zero): the last batch out gives the slots back to the store with it, any other notes it alone.
// An error means the success may not be noted (the deactivation rule must see it): the caller
// keeps the messages of its successful sends, whose handling again notes it.
func (p *slotPool) leave(ctx context.Context, success time.Time) error {
	ctx = context.WithoutCancel(ctx)
	p.mu.Lock()
	p.users--
	if p.users > 0 || len(p.held) == 0 {
		p.mu.Unlock()
		if success.IsZero() {
			return nil
		}
		return p.d.Store.NoteSuccess(ctx, p.teamID, p.webhookID, success)
	}
	var slots []int
	for s := range p.held {
		slots = append(slots, s)
	}
	holder := p.holder
	p.held, p.lent, p.success, p.lentAt = map[int]time.Time{}, 0, time.Time{}, nil
	p.mu.Unlock()
	err := p.d.Store.ReleaseSlots(ctx, p.teamID, p.webhookID, holder, slots, success)
	if err != nil {
		// The slots free themselves when their lease ends.
		logger(p.d.Logger).WarnContext(ctx, "releasing webhook slots failed", slog.String("webhook_id", p.webhookID),
			slog.String("error", err.Error()))
		if !success.IsZero() {
			return p.d.Store.NoteSuccess(ctx, p.teamID, p.webhookID, success)
		}
	}
	return nil
}
