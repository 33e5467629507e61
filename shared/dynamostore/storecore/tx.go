package storecore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Op is one item of a write, and what it means when its condition fails.
type Op struct {
	Put    *dynamo.Put
	Check  *dynamo.ConditionCheck
	Del    *dynamo.Delete
	Upd    *dynamo.Update
	Failed error
}

// Run performs ops in one transaction (a single put too: a transaction's idempotency token makes
// the SDK's retry of an applied attempt safe, see RunTx), whose conflicts with other transactions
// are retried by RunTx. The first item whose condition failed answers its
// failed error.
func (s *DB) Run(ctx context.Context, ops []Op) error { return s.perform(ctx, ops, false) }

// RunRace is Run for a write conditioned on a revision read: a transaction conflict means another
// writer of the record is committing, so it answers ErrRevConflict at once, and the update path
// re-reads rather than resending a write that has most likely lost already.
func (s *DB) RunRace(ctx context.Context, ops []Op) error { return s.perform(ctx, ops, true) }

func (s *DB) perform(ctx context.Context, ops []Op, conflictIsRace bool) error {
	attempts := MaxTxAttempts
	if conflictIsRace {
		attempts = 1
	}
	err := s.RunTx(ctx, attempts, func() *dynamo.WriteTx {
		tx := s.Dynamo.WriteTx()
		for _, o := range ops {
			switch {
			case o.Put != nil:
				tx.Put(o.Put)
			case o.Check != nil:
				tx.Check(o.Check)
			case o.Del != nil:
				tx.Delete(o.Del)
			case o.Upd != nil:
				tx.Update(o.Upd)
			}
		}
		return tx
	})
	for i, o := range ops {
		if CancelReason(err, i) == "ConditionalCheckFailed" && o.Failed != nil {
			return o.Failed
		}
	}
	if conflictIsRace && IsTxConflict(err) {
		return ErrRevConflict
	}
	return err
}

// ErrRevConflict reports a lost optimistic-concurrency race: re-read and re-apply.
var ErrRevConflict = errors.New("record changed concurrently")

// RaceBudget bounds how long an update keeps re-reading and re-applying after lost races, when
// the request's context allows longer.
const RaceBudget = 7 * time.Second

// RetryRaces runs attempt until it does not lose a race, sleeping a jittered, growing backoff
// between attempts ("full jitter"), so that writers contending for one record spread out rather
// than collide again. Past RaceBudget or the context's deadline it gives up with an internal error.
func RetryRaces[T any](ctx context.Context, attempt func() (T, error)) (T, error) {
	deadline := time.Now().Add(RaceBudget)
	backoff := 5 * time.Millisecond
	for {
		v, err := attempt()
		if !errors.Is(err, ErrRevConflict) {
			return v, err
		}
		sleep := rand.N(backoff) + time.Millisecond
		if time.Now().Add(sleep).After(deadline) {
			var zero T
			return zero, patio.Internal(ErrRevConflict)
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, patio.Internal(fmt.Errorf("%w: %w", ErrRevConflict, ctx.Err()))
		case <-time.After(sleep):
		}
		backoff = min(backoff*2, 250*time.Millisecond)
	}
}

// Stamped returns a copy of the row to write, with when it is written (storeformat.WrittenAttr)
// and, when ctx's actor is an API key, the key.
func Stamped(ctx context.Context, row dynamo.Item) dynamo.Item {
	out := maps.Clone(row)
	out[storeformat.WrittenAttr] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().UnixMilli(), 10)}
	if a := patio.ActorOf(ctx); a.Kind == patio.ActorKey {
		out[storeformat.ByKeyAttr] = &types.AttributeValueMemberS{Value: a.ID}
	}
	return out
}

// AttrString returns the string attribute name of item, or "" when it has none.
func AttrString(item dynamo.Item, name string) string {
	var s string
	if v, ok := item[name]; ok {
		_ = dynamo.Unmarshal(v, &s)
	}
	return s
}
