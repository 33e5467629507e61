package delivery

import (
	"context"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// TestLaneSendsEndInAnyOrder: sends end in any order, and one given back after a later one ended
// (a hold began before it went out) leaves nothing behind. A send that stayed counted would make
// the webhook look slow for ever (its oldest send out for longer and longer), and its deliveries
// would be parked again each time the sweep brought them back.
func TestLaneSendsEndInAnyOrder(t *testing.T) {
	l := &lane{d: &Deliverer{}, changed: make(chan struct{}), bound: InitialBound}
	l.synced = time.Now() // no write of the gate is due
	a := time.Now().Add(-time.Minute)
	b := a.Add(time.Millisecond)
	l.mu.Lock()
	l.lend(a)
	l.lend(b)
	l.mu.Unlock()

	// b, lent after a, is answered first: a 500 (the receiver strained, no pause asked).
	l.put(context.Background(), b, b, time.Millisecond, webhook.Result{StatusCode: 500, ErrorClass: webhook.ErrHTTPStatus})
	// Then a pause begins before a goes out: a is given back.
	l.mu.Lock()
	l.hold = time.Now().Add(2 * time.Second)
	l.mu.Unlock()
	if _, held := l.cancel(admission{ok: true, lent: a}, time.Now()); !held {
		t.Fatal("a send admitted before a pause began went out during it; want it given back")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight != 0 || len(l.lentAt) != 0 {
		t.Errorf("after both sends ended: %d in flight, lent at %v; want none", l.inFlight, l.lentAt)
	}
}
