package webhook

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"
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
	lastTurn  time.Time     // when a slot last came back or was taken from the store
	missed    bool          // the store had no free slot since lastTurn
}

// stallAfter is how long slots may all stay lent, none coming back, before the webhook is taken as
// slow: a get then gives up at once rather than wait for sends that may take their whole timeout.
const stallAfter = 200 * time.Millisecond

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
		timeout = DefaultTimeout
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

// get waits until a slot is lent to the caller (true), or until deadline or ctx's end (false). It
// gives up at once when the webhook was found busy lately, when no slot came back for stallAfter,
// or when the sends ahead of it, at the pace sends have been going, would not leave it a slot
// before deadline. When it finds none before deadline the webhook is taken as busy for busyFor.
func (p *slotPool) get(ctx context.Context, deadline time.Time) bool {
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
			p.mu.Unlock()
			return true
		}
		now := time.Now()
		expected := time.Duration(0)
		full := len(p.held) == MaxInFlight || p.missed
		if full {
			expected = time.Duration(p.waiting) * p.sendTime / MaxInFlight
		}
		stalled := full && now.Sub(p.lastTurn) > stallAfter
		if !now.Before(deadline) || now.Before(p.busyUntil) || now.Add(expected).After(deadline) || stalled {
			if !now.Before(deadline) {
				p.busyUntil = now.Add(busyFor)
			}
			p.mu.Unlock()
			return false
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
				p.missed = true
			} else {
				p.lastTurn, p.missed = now, false
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
			return false
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
	p.lastTurn, p.missed = time.Now(), false
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
	p.held, p.lent, p.success = map[int]time.Time{}, 0, time.Time{}
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
