package webhookdb

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
)

// gateSK is the sort key of a webhook's gate item (beside the webhook, in the team's partition):
// its pacing (see gateRow), the time of its last successful delivery (last_success_at, Unix ms),
// which the deactivation rule reads, and when the last warning email went out (warned_at).
func gateSK(id string) string { return "g#" + id }

// ClaimWarning sets warned_at on the webhook's gate item, conditioned on none in the last 24 hours
// and no success since first.
func (s *Gates) ClaimWarning(ctx context.Context, teamID, id string, first, now time.Time) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("warned_at", now.UnixMilli()).
		If("(attribute_not_exists('warned_at') OR 'warned_at' <= ?) AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)",
			now.Add(-24*time.Hour).UnixMilli(), first.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, storecore.Wrap(err, "claim warning of webhook", id)
}

// ReleaseWarning removes warned_at when it is at.
func (s *Gates) ReleaseWarning(ctx context.Context, teamID, id string, at time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Remove("warned_at").If("'warned_at' = ?", at.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return storecore.Wrap(err, "release warning of webhook", id)
}

// NoteSuccess records a successful delivery at t on the webhook's gate, keeping the latest time
// (a write of the gate: its version advances).
func (s *Gates) NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("last_success_at", t.UnixMilli()).Add("ver", 1).
		If("attribute_not_exists('last_success_at') OR 'last_success_at' < ?", t.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return storecore.Wrap(err, "note success of webhook", id)
}

// gateRow is a webhook's gate item (delivery.Gate). Times are Unix ms, next_start Unix µs (a
// max_rate of 1000 spaces starts by a millisecond). Every write of what SwapGate writes adds one
// to ver. An item of the first gate format holds slots (u0..u3, h0..h3) instead of leases; its
// first SwapGate removes them.
type gateRow struct {
	Ver         int64               `dynamo:"ver"`
	Bound       int                 `dynamo:"bound"`
	HoldUntil   int64               `dynamo:"hold_until"`
	NextStart   int64               `dynamo:"next_start"`
	Leases      map[string]leaseRow `dynamo:"leases"`
	Free        int                 `dynamo:"free"`
	LastSuccess int64               `dynamo:"last_success_at"`
}

// leaseRow is one worker's lease in a gate.
type leaseRow struct {
	N     int   `dynamo:"n"`
	Until int64 `dynamo:"until"`
}

func (r gateRow) gate() delivery.Gate {
	g := delivery.Gate{Version: r.Ver, Bound: r.Bound, Hold: fromMilli(r.HoldUntil), LastSuccess: fromMilli(r.LastSuccess), Free: r.Free}
	if r.NextStart != 0 {
		g.NextStart = time.UnixMicro(r.NextStart).UTC()
	}
	for h, l := range r.Leases {
		if g.Leases == nil {
			g.Leases = map[string]delivery.Lease{}
		}
		g.Leases[h] = delivery.Lease{N: l.N, Until: fromMilli(l.Until)}
	}
	return g
}

// Gate returns a webhook's gate (strongly consistent), the zero Gate when it has none.
func (s *Gates) Gate(ctx context.Context, teamID, webhookID string) (delivery.Gate, error) {
	var r gateRow
	err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.Equal, gateSK(webhookID)).Consistent(true).One(ctx, &r)
	if errors.Is(err, dynamo.ErrNotFound) {
		return delivery.Gate{}, nil
	}
	return r.gate(), storecore.Wrap(err, "read gate of webhook", webhookID)
}

// SwapGate writes g's pacing to the webhook's gate in one update conditioned on the version it was
// read at; when another write came first it reads the gate as stored.
func (s *Gates) SwapGate(ctx context.Context, teamID, webhookID string, g delivery.Gate) (delivery.Gate, bool, error) {
	u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID)).Set("ver", g.Version+1).Set("bound", g.Bound)
	set := func(name string, v int64) {
		if v == 0 {
			u = u.Remove(name)
		} else {
			u = u.Set(name, v)
		}
	}
	set("hold_until", unixMilli(g.Hold))
	if g.NextStart.IsZero() {
		set("next_start", 0)
	} else {
		set("next_start", g.NextStart.UnixMicro())
	}
	leases := make(map[string]leaseRow, len(g.Leases))
	for h, l := range g.Leases {
		leases[h] = leaseRow{N: l.N, Until: unixMilli(l.Until)}
	}
	u = u.SetNullable("leases", leases).Set("free", g.Free)
	if !g.LastSuccess.IsZero() {
		u = u.Set("last_success_at", g.LastSuccess.UnixMilli())
	}
	if g.Version == 0 {
		u = u.Remove("u0", "u1", "u2", "u3", "h0", "h1", "h2", "h3").If("attribute_not_exists('ver')")
	} else {
		u = u.If("'ver' = ?", g.Version)
	}
	var r gateRow
	err := u.Value(ctx, &r)
	if dynamo.IsCondCheckFailed(err) {
		stored, err := s.Gate(ctx, teamID, webhookID)
		return stored, false, err
	}
	if err != nil {
		return delivery.Gate{}, false, storecore.Wrap(err, "write gate of webhook", webhookID)
	}
	return r.gate(), true, nil
}

// TakeLease adds holder's lease to the webhook's gate and takes it from free, in one update
// conditioned on free, the hold and holder's having none (see delivery.Gates).
func (s *Gates) TakeLease(ctx context.Context, teamID, webhookID, holder string, n int, until, now time.Time) (delivery.Gate, bool, error) {
	var r gateRow
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID)).
		SetExpr("'leases'.$ = ?", holder, leaseRow{N: n, Until: unixMilli(until)}).SetExpr("'free' = 'free' - ?", n).Add("ver", 1).
		If("attribute_exists('leases') AND 'free' >= ? AND attribute_not_exists('leases'.$) AND (attribute_not_exists('hold_until') OR 'hold_until' <= ?)",
			n, holder, now.UnixMilli()).
		Value(ctx, &r)
	if dynamo.IsCondCheckFailed(err) {
		return delivery.Gate{}, false, nil
	}
	if err != nil {
		return delivery.Gate{}, false, storecore.Wrap(err, "take a lease of webhook", webhookID)
	}
	return r.gate(), true, nil
}
