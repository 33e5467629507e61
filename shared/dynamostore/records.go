package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// kind declares how one record type is stored; records serves every kind with the same create,
// get, update and list. Declaring a resource is declaring its kind: its rows and conversions, its
// unique values, its sort indexes and its filters.
type kind[T, R, Q any] struct {
	what   string // names the record in errors ("vehicle")
	prefix string // the sort key prefix of its items ("v#")
	table  func(Tables) string
	// key returns a record's team and id.
	key func(T) (teamID, id string)
	// encode returns the row of a record; decode the record of a row (revision included).
	encode func(T) R
	decode func(R) (T, error)
	// revision reads a record's revision; withRevision sets it (the store owns revisions).
	revision     func(T) int
	withRevision func(T, int) T
	// guards returns the unique values the record holds (nil for none).
	guards func(T) []guard
	// sorts maps each sortable field to its index; filter turns a list query into its filter.
	sorts  map[string]sortIndex
	filter func(Q) (filter, patio.ListQuery)
}

// Stored revisions: the rev attribute counts the writes after the first (0 for a new record), so
// that records written before revisions were public keep theirs: revision = rev + 1.
func revAttr(revision int) int { return revision - 1 }
func revisionOf(rev int) int   { return rev + 1 }

// guard is a unique value a record holds (a plate, a CPF): a guard item in the team's partition
// with sort key sk, and the error a write gets when another record holds it.
type guard struct {
	sk    string
	taken error
}

// guardRow reserves a unique value (plate, CPF, CNPJ) for one record of a team.
type guardRow struct {
	PK    string `dynamo:"pk,hash"`
	SK    string `dynamo:"sk,range"`
	Owner string `dynamo:"owner"`
}

// records is a kind on a store: it implements patio.Store for the kind's record type.
type records[T, R, Q any] struct {
	s *Store
	k *kind[T, R, Q]
}

func (r records[T, R, Q]) table() dynamo.Table { return r.s.db.Table(r.k.table(r.s.tables)) }

// Get returns a team's record (strongly consistent), or KindNotFound.
func (r records[T, R, Q]) Get(ctx context.Context, teamID, id string) (T, error) {
	return getRecord(ctx, r.table(), teamID, r.k.prefix+id, r.k.what, r.k.decode)
}

// Create stores a new record at revision 1 with its unique values and requirements, in one
// transaction when there is more than the record to write.
func (r records[T, R, Q]) Create(ctx context.Context, w patio.Write[T]) (T, error) {
	rec := r.k.withRevision(w.Record, 1)
	teamID, id := r.k.key(rec)
	var ops []op
	if w.Claim != nil {
		// First, so that a repeat of a creation answers "claimed" before any other condition.
		claim, err := r.s.claimOp(*w.Claim, rec, time.Now())
		if err != nil {
			return rec, wrap(err, "create "+r.k.what, id)
		}
		ops = append(ops, claim)
	}
	ops = append(ops, op{put: r.table().Put(r.k.encode(rec)).If("attribute_not_exists(pk)"),
		failed: fmt.Errorf("%s %s already exists", r.k.what, id)})
	ops = append(ops, r.guardOps(teamID, id, nil, r.k.guards(rec))...)
	more, err := r.s.related(teamID, w.Requires, w.Also)
	if err != nil {
		return rec, wrap(err, "create "+r.k.what, id)
	}
	err = r.s.run(ctx, append(ops, more...))
	if errors.Is(err, patio.ErrClaimTaken) {
		return rec, err
	}
	return rec, wrap(err, "create "+r.k.what, id)
}

// Update is the one update path of every record type: read the record, ask change for the write,
// and when it changes something write it conditioned on the revision read, with its unique values
// moved and its requirements checked in the same transaction. A lost race re-reads and asks
// again, with jittered backoff, until the request's context or raceBudget runs out.
func (r records[T, R, Q]) Update(ctx context.Context, teamID, id string, change func(T) (patio.Write[T], error)) (T, error) {
	return retryRaces(ctx, func() (T, error) {
		cur, err := r.Get(ctx, teamID, id)
		if err != nil {
			return cur, err
		}
		w, err := change(cur)
		if err != nil || !w.Changed {
			return cur, err
		}
		next := r.k.withRevision(w.Record, r.k.revision(cur)+1)
		ops := []op{r.replace(cur, next)}
		ops = append(ops, r.guardOps(teamID, id, r.k.guards(cur), r.k.guards(next))...)
		more, err := r.s.related(teamID, w.Requires, w.Also)
		if err != nil {
			return cur, wrap(err, "update "+r.k.what, id)
		}
		return next, wrap(r.s.run(ctx, append(ops, more...)), "update "+r.k.what, id)
	})
}

// replace is the write of next over cur, conditioned on cur's revision.
func (r records[T, R, Q]) replace(cur, next T) op {
	return op{put: r.table().Put(r.k.encode(next)).If("'rev' = ?", revAttr(r.k.revision(cur))), failed: errRevConflict}
}

// List returns one page of a team's records and the total matching.
func (r records[T, R, Q]) List(ctx context.Context, teamID string, q Q) ([]T, int, error) {
	f, lq := r.k.filter(q)
	return listRecords(ctx, r.table(), teamID, r.k.prefix, r.k.what+"s", r.k.sorts[lq.Sort], lq, f, r.k.decode)
}

// guardOps reserves the unique values next holds that cur did not, and releases those cur held
// that next does not.
func (r records[T, R, Q]) guardOps(teamID, owner string, cur, next []guard) []op {
	var ops []op
	held := map[string]bool{}
	for _, g := range cur {
		held[g.sk] = true
	}
	kept := map[string]bool{}
	for _, g := range next {
		kept[g.sk] = true
		if !held[g.sk] {
			ops = append(ops, op{put: r.table().Put(guardRow{PK: teamID, SK: g.sk, Owner: owner}).If("attribute_not_exists(pk)"),
				failed: g.taken})
		}
	}
	for _, g := range cur {
		if !kept[g.sk] {
			ops = append(ops, op{del: r.table().Delete("pk", teamID).Range("sk", g.sk)})
		}
	}
	return ops
}

// related returns the operations for what a write rests on and changes besides its record: its
// requirements (condition checks) and the other records it replaces.
func (s *Store) related(teamID string, reqs []patio.Requirement, also []patio.Revised) ([]op, error) {
	var ops []op
	for _, req := range reqs {
		table, prefix, err := s.resource(req.Resource)
		if err != nil {
			return nil, err
		}
		marks, args := placeholders(req.Statuses)
		ops = append(ops, op{check: table.Check("pk", teamID).Range("sk", prefix+req.ID).If("'status' IN ("+marks+")", args...),
			failed: req.Err})
	}
	for _, rv := range also {
		switch cur := rv.Cur.(type) {
		case patio.Vehicle:
			next, ok := rv.Next.(patio.Vehicle)
			if !ok {
				return nil, fmt.Errorf("dynamostore: revised %T into %T", rv.Cur, rv.Next)
			}
			v := records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s, &vehicleKind}
			ops = append(ops, v.replace(cur, v.k.withRevision(next, v.k.revision(cur)+1)))
			ops = append(ops, v.guardOps(teamID, next.ID, v.k.guards(cur), v.k.guards(next))...)
		default:
			return nil, fmt.Errorf("dynamostore: cannot revise a %T", rv.Cur)
		}
	}
	return ops, nil
}

// resource returns the table and sort key prefix of a resource's records.
func (s *Store) resource(name string) (dynamo.Table, string, error) {
	prefix, err := keyPrefix(name)
	if err != nil {
		return dynamo.Table{}, "", err
	}
	tables := map[string]string{patio.ResourceVehicle: s.tables.Vehicles, patio.ResourceClient: s.tables.Clients,
		patio.ResourceDeal: s.tables.Deals}
	return s.db.Table(tables[name]), prefix, nil
}

// op is one item of a write, and what it means when its condition fails.
type op struct {
	put    *dynamo.Put
	check  *dynamo.ConditionCheck
	del    *dynamo.Delete
	failed error
}

// run performs ops: a single put alone, anything more in one transaction (conflicts with other
// transactions retried by runTx). The first item whose condition failed answers its failed error.
func (s *Store) run(ctx context.Context, ops []op) error {
	if len(ops) == 1 && ops[0].put != nil {
		err := ops[0].put.Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			return ops[0].failed
		}
		return err
	}
	err := s.runTx(ctx, func() *dynamo.WriteTx {
		tx := s.db.WriteTx()
		for _, o := range ops {
			switch {
			case o.put != nil:
				tx.Put(o.put)
			case o.check != nil:
				tx.Check(o.check)
			case o.del != nil:
				tx.Delete(o.del)
			}
		}
		return tx
	})
	for i, o := range ops {
		if cancelReason(err, i) == "ConditionalCheckFailed" && o.failed != nil {
			return o.failed
		}
	}
	return err
}

// errRevConflict reports a lost optimistic-concurrency race: re-read and re-apply.
var errRevConflict = errors.New("record changed concurrently")

// raceBudget bounds how long an update keeps re-reading and re-applying after lost races, when
// the request's context allows longer.
const raceBudget = 5 * time.Second

// retryRaces runs attempt until it does not lose a race, sleeping a jittered, growing backoff
// between attempts ("full jitter"), so that writers contending for one record spread out rather
// than collide again. Past raceBudget or the context's deadline it gives up with an internal error.
func retryRaces[T any](ctx context.Context, attempt func() (T, error)) (T, error) {
	deadline := time.Now().Add(raceBudget)
	backoff := 5 * time.Millisecond
	for {
		v, err := attempt()
		if !errors.Is(err, errRevConflict) {
			return v, err
		}
		sleep := rand.N(backoff) + time.Millisecond
		if time.Now().Add(sleep).After(deadline) {
			var zero T
			return zero, patio.Internal(errRevConflict)
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, patio.Internal(fmt.Errorf("%w: %w", errRevConflict, ctx.Err()))
		case <-time.After(sleep):
		}
		backoff = min(backoff*2, 250*time.Millisecond)
	}
}

// placeholders returns "?, ?, ..." for values, and the values as arguments.
func placeholders(values []string) (string, []any) {
	marks := ""
	args := make([]any, len(values))
	for i, v := range values {
		if i > 0 {
			marks += ", "
		}
		marks += "?"
		args[i] = v
	}
	return marks, args
}
