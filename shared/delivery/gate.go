package delivery

import (
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// Gate is a webhook's pacing, kept in the store for every worker of the deployment: its adaptive
// bound, the hold a Retry-After asked for, the earliest start its max_rate leaves, and what each
// worker may have in flight. Each worker leases part of the bound and lends it to its sends; the
// leases never add up to more than the bound when granted.
type Gate struct {
	// Version counts the gate's writes: a write is made on the version read (Gates.SwapGate).
	Version int64
	// Bound is how many requests may be in flight at once (0: InitialBound).
	Bound int
	// Hold: no request starts before it.
	Hold time.Time
	// NextStart is, under a max_rate, the earliest start of the next request.
	NextStart time.Time
	// Leases are what each worker (by holder) may have in flight, and until when.
	Leases map[string]Lease
	// Free is what the bound leaves to lease: the bound less the live leases when the gate was
	// last written whole, less every lease TakeLease granted since. Leases only run out between
	// two writes, so Free never exceeds what the bound truly leaves.
	Free int
	// LastSuccess is when a delivery to the webhook last succeeded (the deactivation rule reads
	// it).
	LastSuccess time.Time
}

// Lease is what one worker may have in flight, until Until (a worker that stops renewing it,
// having crashed, blocks nobody for longer).
type Lease struct {
	N     int
	Until time.Time
}

// bound returns the gate's bound, InitialBound when it has none yet.
func (g Gate) bound() int {
	if g.Bound <= 0 {
		return InitialBound
	}
	return g.Bound
}

// others returns what holders other than holder may have in flight at now.
func (g Gate) others(holder string, now time.Time) int {
	n := 0
	for h, l := range g.Leases {
		if h != holder && l.Until.After(now) {
			n += l.N
		}
	}
	return n
}

// change is what one worker writes to a gate: the answers it got since its last write, the hold
// and the success it saw, and the lease it wants.
type change struct {
	holder string
	// answers are the answers received since the last write, in order (only their effect on the
	// bound counts: see Adjust).
	answers []webhook.Result
	hold    time.Time
	success time.Time
	// inFlight is what the worker has in flight; want what it would have in flight if it could.
	// release gives the lease back (the worker has nothing more to send).
	inFlight, want int
	release        bool
	// leaseFor is how long the lease lasts.
	leaseFor time.Duration
	// rate is the webhook's max_rate; starts how many request starts to reserve under it.
	rate   webhook.Rate
	starts int
	// unused gives back starts reserved before and not used: [from, to) when to is still the
	// gate's NextStart (nobody reserved after them).
	unusedFrom, unusedTo time.Time
}

// apply returns the gate after c at now, and the starts it reserves for c (from first, one every
// spacing, up to after; none when first equals after).
func (g Gate) apply(c change, now time.Time) (next Gate, first, after time.Time) {
	next = g
	next.Leases = map[string]Lease{}
	for h, l := range g.Leases {
		if l.Until.After(now) {
			next.Leases[h] = l
		}
	}
	b := g.bound()
	for _, res := range c.answers {
		b = Adjust(b, res)
	}
	next.Bound = b
	if c.hold.After(next.Hold) {
		next.Hold = c.hold
	}
	if c.success.After(next.LastSuccess) {
		next.LastSuccess = c.success
	}
	if !c.unusedTo.IsZero() && next.NextStart.Equal(c.unusedTo) && c.unusedFrom.Before(c.unusedTo) {
		next.NextStart = c.unusedFrom
	}
	delete(next.Leases, c.holder)
	if !c.release {
		// In-flight requests cannot be called back: a lease covers them even when the bound fell.
		if n := max(c.inFlight, min(c.want, b-next.others(c.holder, now))); n > 0 {
			next.Leases[c.holder] = Lease{N: n, Until: now.Add(c.leaseFor)}
		}
		if c.rate > 0 && c.starts > 0 {
			first, after = Reserve(next.NextStart, now, c.rate, c.starts)
			next.NextStart = after
		}
	}
	if len(next.Leases) == 0 {
		next.Leases = nil
	}
	next.Free = max(b-next.others("", now), 0)
	return next, first, after
}
