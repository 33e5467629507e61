package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/delivery"
)

// gateSK is the sort key of a webhook's gate item (beside the webhook, in the team's partition):
// its MaxInFlight delivery slots (u<i>: held until, Unix ms; h<i>: holder) and the time of its last
// successful delivery (last_success_at, Unix ms), which the deactivation rule reads.
func gateSK(id string) string { return "g#" + id }

// ClaimWarning sets warned_at on the webhook's gate item, conditioned on none in the last 24 hours
// and no success since first.
func (s *Store) ClaimWarning(ctx context.Context, teamID, id string, first, now time.Time) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("warned_at", now.UnixMilli()).
		If("(attribute_not_exists('warned_at') OR 'warned_at' <= ?) AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)",
			now.Add(-24*time.Hour).UnixMilli(), first.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "claim warning of webhook", id)
}

// ReleaseWarning removes warned_at when it is at.
func (s *Store) ReleaseWarning(ctx context.Context, teamID, id string, at time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Remove("warned_at").If("'warned_at' = ?", at.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "release warning of webhook", id)
}

// NoteSuccess records a successful delivery at t on the webhook's gate, keeping the latest time.
func (s *Store) NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("last_success_at", t.UnixMilli()).
		If("attribute_not_exists('last_success_at') OR 'last_success_at' < ?", t.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "note success of webhook", id)
}

// gateRow is a webhook's gate item, as read to find free slots.
type gateRow struct {
	U0 int64 `dynamo:"u0"`
	U1 int64 `dynamo:"u1"`
	U2 int64 `dynamo:"u2"`
	U3 int64 `dynamo:"u3"`
}

func (g gateRow) until() [delivery.MaxInFlight]int64 { return [...]int64{g.U0, g.U1, g.U2, g.U3} }

// AcquireSlots takes up to want free slots of the webhook's gate for holder until until, and
// returns which. It first tries, in one conditional write, want slots from a random one on (the
// usual case: the webhook is idle); when that fails it reads the gate and takes the free ones it
// saw, conditioned on their being unchanged, a few times.
func (s *Store) AcquireSlots(ctx context.Context, teamID, webhookID, holder string, want int, now, until time.Time) ([]int, error) {
	want = min(want, delivery.MaxInFlight)
	if want <= 0 {
		return nil, nil
	}
	first := rand.N(delivery.MaxInFlight)
	var slots []int
	for i := range want {
		slots = append(slots, (first+i)%delivery.MaxInFlight)
	}
	ok, err := s.takeSlots(ctx, teamID, webhookID, holder, slots, nil, now, until)
	if ok || err != nil {
		return slots, err
	}
	for range 3 {
		var g gateRow
		err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.Equal, gateSK(webhookID)).Consistent(true).One(ctx, &g)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, wrap(err, "read gate of webhook", webhookID)
		}
		seen := g.until()
		slots = nil
		for i, u := range seen {
			if len(slots) < want && u < now.UnixMilli() {
				slots = append(slots, i)
			}
		}
		if len(slots) == 0 {
			return nil, nil
		}
		ok, err := s.takeSlots(ctx, teamID, webhookID, holder, slots, seen[:], now, until)
		if ok || err != nil {
			return slots, err
		}
	}
	return nil, nil
}

// takeSlots writes holder into the given slots when each is free (absent or expired at now) or,
// with seen, exactly as seen.
func (s *Store) takeSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, seen []int64, now, until time.Time) (bool, error) {
	u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
	cond, args := "", []any{}
	for k, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		u = u.Set(un, until.UnixMilli()).Set(hn, holder)
		if k > 0 {
			cond += " AND "
		}
		if seen != nil && seen[i] != 0 {
			cond += "'" + un + "' = ?"
			args = append(args, seen[i])
		} else {
			cond += "(attribute_not_exists('" + un + "') OR '" + un + "' < ?)"
			args = append(args, now.UnixMilli())
		}
	}
	err := u.If(cond, args...).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err, "take slots of webhook", webhookID)
	}
	return true, nil
}

// RenewSlots extends the given slots to until where holder still holds them: one conditional write
// in the usual case, slot by slot when one was taken over.
func (s *Store) RenewSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, until time.Time) ([]int, error) {
	renew := func(slots []int) error {
		u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
		cond, args := "", []any{}
		for k, i := range slots {
			u = u.Set(fmt.Sprintf("u%d", i), until.UnixMilli())
			if k > 0 {
				cond += " AND "
			}
			cond += fmt.Sprintf("'h%d' = ?", i)
			args = append(args, holder)
		}
		return u.If(cond, args...).Run(ctx)
	}
	if len(slots) == 0 {
		return nil, nil
	}
	err := renew(slots)
	if err == nil {
		return slots, nil
	}
	if !dynamo.IsCondCheckFailed(err) {
		return nil, wrap(err, "renew slots of webhook", webhookID)
	}
	var kept []int
	for _, i := range slots {
		err := renew([]int{i})
		switch {
		case err == nil:
			kept = append(kept, i)
		case !dynamo.IsCondCheckFailed(err):
			return kept, wrap(err, "renew slot of webhook", webhookID)
		}
	}
	return kept, nil
}

// ReleaseSlots frees the given slots where holder still holds them, and records success (when not
// zero) as NoteSuccess does: one conditional write in the usual case; slot by slot when another
// holder took one over meanwhile (its time was up) or a later success was noted.
func (s *Store) ReleaseSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, success time.Time) error {
	u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
	cond, args := "attribute_exists(pk)", []any{}
	for _, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		u = u.Remove(un, hn)
		cond += " AND '" + hn + "' = ?"
		args = append(args, holder)
	}
	if !success.IsZero() {
		u = u.Set("last_success_at", success.UnixMilli())
		cond += " AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)"
		args = append(args, success.UnixMilli())
	}
	err := u.If(cond, args...).Run(ctx)
	if !dynamo.IsCondCheckFailed(err) {
		return wrap(err, "release slots of webhook", webhookID)
	}
	for _, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID)).Remove(un, hn).If("'"+hn+"' = ?", holder).Run(ctx)
		if err != nil && !dynamo.IsCondCheckFailed(err) {
			return wrap(err, "release slot of webhook", webhookID)
		}
	}
	if success.IsZero() {
		return nil
	}
	return s.NoteSuccess(ctx, teamID, webhookID, success)
}
