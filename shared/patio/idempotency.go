package patio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// IdempotencyWindow is how long an Idempotency-Key is remembered after the creation it recorded.
// A key older than this is free again, whatever the table's TTL has done.
const IdempotencyWindow = 24 * time.Hour

// IdempotencyKey is a create's Idempotency-Key with what identifies its request: the edge
// derives Fingerprint from the method, the path and the body compared as parsed JSON.
type IdempotencyKey struct {
	Key         string
	Fingerprint string
}

// Claim is an Idempotency-Key claimed by a creation: written by the store in the same
// transaction as the record, so that a creation that committed is always remembered. Record is
// the created record's representation (its JSON form), the answer a replay repeats.
type Claim struct {
	TeamID      string
	Key         string
	Fingerprint string
	Record      json.RawMessage
	Expires     time.Time
}

// ErrClaimTaken is what a store answers when the key a creation claims is already claimed (by a
// request that raced with it): nothing was written, and the caller reads the claim instead.
var ErrClaimTaken = errors.New("patio: idempotency key already claimed")

// Claims reads the claims of Idempotency-Keys.
type Claims interface {
	// Claimed returns the claim of a team's key, or KindNotFound (an expired claim may still be
	// returned: check Expires).
	Claimed(ctx context.Context, teamID, key string) (Claim, error)
}

// CreateOnce is Create made safe to retry: the first request with a key creates the record and
// claims the key in the same write; a repeat of the same request within IdempotencyWindow answers
// the record as first created, with replayed true, and creates nothing; the same key with a
// different request is KindConflict naming Idempotency-Key. Requests racing with one key create
// exactly one record. A request that fails creates nothing and claims nothing.
//
// A first request is the common case, so nothing is read before the write: the claim is read only
// when the write fails, which a repeat's does (its claim is taken, or what the first creation
// changed makes this one's checks fail), as does a different request's with a used key.
func (s Service[T, In, Q]) CreateOnce(ctx context.Context, teamID string, in In, key IdempotencyKey) (T, bool, error) {
	var zero T
	if s.claims == nil {
		return zero, false, Internal(errors.New("patio: CreateOnce needs a Claims store (WithClaims)"))
	}
	for range 2 {
		rec, err := s.create(ctx, teamID, in, &key)
		if err == nil {
			return rec, false, nil
		}
		prior, found, rerr := s.replay(ctx, teamID, key)
		taken := errors.Is(err, ErrClaimTaken)
		switch {
		case found:
			return prior, true, nil
		case rerr != nil && (taken || IsKind(rerr, KindConflict)):
			return zero, false, rerr
		case !taken:
			// No live claim: the failure is this request's own.
			return zero, false, err
		}
		// The claim was taken, and is gone or expired by now: try again.
	}
	return zero, false, Internal(fmt.Errorf("patio: idempotency key %q claimed but not readable", key.Key))
}

// replay returns the record a live claim of the key recorded, if there is one.
func (s Service[T, In, Q]) replay(ctx context.Context, teamID string, key IdempotencyKey) (T, bool, error) {
	var rec T
	c, err := s.claims.Claimed(ctx, teamID, key.Key)
	switch {
	case IsKind(err, KindNotFound):
		return rec, false, nil
	case err != nil:
		return rec, false, err
	case !c.Expires.After(s.clock()):
		return rec, false, nil
	case c.Fingerprint != key.Fingerprint:
		var p Problems
		p.Add(InHeader, "Idempotency-Key", "Idempotency-Key was already used with a different request in the last 24 hours")
		e := p.Err().(*Error)
		e.Kind = KindConflict
		return rec, false, e
	}
	if err := json.Unmarshal(c.Record, &rec); err != nil {
		return rec, false, Internal(fmt.Errorf("patio: decode the record claimed by key %q: %w", key.Key, err))
	}
	return rec, true, nil
}
