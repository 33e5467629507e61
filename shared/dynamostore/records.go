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

	// Lists at any size (pages.go). status reads a record's status: the range of every index it
	// sits in, and the count it adds to. A record also has an order item, a copy of its row under
	// "<orderPrefix><status>#<id>" that serves creation order per status; orderItem returns that
	// copy of a row, its index attributes cleared so that it sits in no index. current reports a
	// row in the current format (status-prefixed keys, an order item, counted), not yet rewritten
	// by the maintenance backfill otherwise. Kinds without lists (webhooks) leave these nil.
	status      func(T) string
	orderPrefix string
	orderItem   func(row R, sk string) R
	current     func(R) bool

	// alarmKey, for records with timed events, reads a row's pending alarm entry (alarms.go): a
	// write is conditioned on it too, so a write and a firing of the same record never both
	// succeed on the same read (the firing changes no revision).
	alarmKey func(R) string
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
	rec, _, err := r.get(ctx, teamID, id)
	return rec, err
}

// get returns a team's record and whether its row is in the current format.
func (r records[T, R, Q]) get(ctx context.Context, teamID, id string) (T, bool, error) {
	var row R
	sk := r.k.prefix + id
	if err := r.table().Get("pk", teamID).Range("sk", dynamo.Equal, sk).Consistent(true).One(ctx, &row); err != nil {
		var zero T
		return zero, false, wrap(notFound(err, r.k.what), "get "+r.k.what, sk)
	}
	rec, err := r.k.decode(row)
	return rec, r.k.current == nil || r.k.current(row), wrap(err, "decode "+r.k.what, sk)
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
	ops = append(ops, r.trackOps(teamID, nil, false, rec)...)
	ops = append(ops, r.guardOps(teamID, id, nil, r.k.guards(rec))...)
	more, err := r.s.related(ctx, teamID, w.Requires, w.Also, false)
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
// again, with jittered backoff, until the request's context or raceBudget runs out. The first
// attempt takes the other records it revises to be in the current format (see related); the
// following ones read them.
func (r records[T, R, Q]) Update(ctx context.Context, teamID, id string, change func(T) (patio.Write[T], error)) (T, error) {
	attempts := 0
	return retryRaces(ctx, func() (T, error) {
		attempts++
		cur, current, err := r.get(ctx, teamID, id)
		if err != nil {
			return cur, err
		}
		w, err := change(cur)
		if err != nil || !w.Changed {
			return cur, err
		}
		next := r.k.withRevision(w.Record, r.k.revision(cur)+1)
		ops := r.replace(teamID, cur, current, next)
		more, err := r.s.related(ctx, teamID, w.Requires, w.Also, attempts == 1)
		if err != nil {
			return cur, wrap(err, "update "+r.k.what, id)
		}
		return next, wrap(r.s.runRace(ctx, append(ops, more...)), "update "+r.k.what, id)
	})
}

// replace is the write of next over cur (whose row is current or not), conditioned on cur's
// revision, with its order item, counts and unique values kept in step.
func (r records[T, R, Q]) replace(teamID string, cur T, current bool, next T) []op {
	_, id := r.k.key(next)
	put := r.table().Put(r.k.encode(next)).If("'rev' = ?", revAttr(r.k.revision(cur)))
	if r.k.alarmKey != nil {
		if key := r.k.alarmKey(r.k.encode(cur)); key != "" {
			put = put.If("'alarm_key' = ?", key)
		} else {
			put = put.If("attribute_not_exists('alarm_key')")
		}
	}
	ops := []op{{put: put, failed: errRevConflict}}
	ops = append(ops, r.trackOps(teamID, &cur, current, next)...)
	return append(ops, r.guardOps(teamID, id, r.k.guards(cur), r.k.guards(next))...)
}

// trackOps keeps a record's order item and its status's count in step with a write of next over
// cur (nil for a creation): the order item is rewritten (and moved when the status changes); a
// new record, or one not yet counted (its row predates the current format), adds one to its
// status's count; a status change moves one from the old status to the new.
func (r records[T, R, Q]) trackOps(teamID string, cur *T, current bool, next T) []op {
	if r.k.status == nil {
		return nil
	}
	t := r.table()
	_, id := r.k.key(next)
	status := r.k.status(next)
	ops := []op{{put: t.Put(r.k.orderItem(r.k.encode(next), r.orderKey(status, id)))}}
	switch {
	case cur == nil || !current:
		ops = append(ops, r.s.countOp(t, teamID, "", status))
	case r.k.status(*cur) != status:
		old := r.k.status(*cur)
		ops = append(ops, op{del: t.Delete("pk", teamID).Range("sk", r.orderKey(old, id))},
			r.s.countOp(t, teamID, old, status))
	}
	return ops
}

// orderKey is the sort key of a record's order item.
func (r records[T, R, Q]) orderKey(status, id string) string {
	return r.k.orderPrefix + status + "#" + id
}

// List returns one page of a team's records, the total matching, and the position after it.
func (r records[T, R, Q]) List(ctx context.Context, teamID string, q Q) (patio.Listed[T], error) {
	f, lq := r.k.filter(q)
	out, err := r.list(ctx, teamID, lq, f)
	return out, wrap(err, "list "+r.k.what+"s of team", teamID)
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
// requirements (condition checks) and the other records it replaces. How another record's count
// moves depends on whether its row is in the current format, which the domain's read of it does
// not say: unless assumeCurrent, the row is read again to tell; with it, the row is taken to be
// current and its write is conditioned on that too (its index key starts with its status), which
// saves that read on every write but the rare one over a row awaiting the backfill, whose
// condition fails like a lost race: the caller's next attempt reads it.
func (s *Store) related(ctx context.Context, teamID string, reqs []patio.Requirement, also []patio.Revised, assumeCurrent bool) ([]op, error) {
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
			// The write is conditioned on the revision the domain read, so a row rewritten since
			// fails the whole write.
			current := true
			if !assumeCurrent {
				var err error
				if _, current, err = v.get(ctx, teamID, cur.ID); err != nil {
					return nil, err
				}
			}
			replace := v.replace(teamID, cur, current, v.k.withRevision(next, v.k.revision(cur)+1))
			if assumeCurrent {
				expr, arg := currentRowCond(cur.Status)
				replace[0].put = replace[0].put.If(expr, arg)
			}
			ops = append(ops, replace...)
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
	upd    *dynamo.Update
	failed error
}

// run performs ops: a single put alone, anything more in one transaction, whose conflicts with
// other transactions are retried by runTx. The first item whose condition failed answers its
// failed error.
func (s *Store) run(ctx context.Context, ops []op) error { return s.perform(ctx, ops, false) }

// runRace is run for a write conditioned on a revision read: a transaction conflict means another
// writer of the record is committing, so it answers errRevConflict at once, and the update path
// re-reads rather than resending a write that has most likely lost already.
func (s *Store) runRace(ctx context.Context, ops []op) error { return s.perform(ctx, ops, true) }

func (s *Store) perform(ctx context.Context, ops []op, conflictIsRace bool) error {
	if len(ops) == 1 && ops[0].put != nil {
		err := ops[0].put.Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			return ops[0].failed
		}
		return err
	}
	attempts := maxTxAttempts
	if conflictIsRace {
		attempts = 1
	}
	err := s.runTx(ctx, attempts, func() *dynamo.WriteTx {
		tx := s.db.WriteTx()
		for _, o := range ops {
			switch {
			case o.put != nil:
				tx.Put(o.put)
			case o.check != nil:
				tx.Check(o.check)
			case o.del != nil:
				tx.Delete(o.del)
			case o.upd != nil:
				tx.Update(o.upd)
			}
		}
		return tx
	})
	for i, o := range ops {
		if cancelReason(err, i) == "ConditionalCheckFailed" && o.failed != nil {
			return o.failed
		}
	}
	if conflictIsRace && isTxConflict(err) {
		return errRevConflict
	}
	return err
}

// errRevConflict reports a lost optimistic-concurrency race: re-read and re-apply.
var errRevConflict = errors.New("record changed concurrently")

// raceBudget bounds how long an update keeps re-reading and re-applying after lost races, when
// the request's context allows longer.
const raceBudget = 7 * time.Second

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
