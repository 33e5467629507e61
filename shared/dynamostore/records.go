package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// kind declares how one record type is stored; records serves every kind with the same create,
// get and update, and the list engine (package lists) its lists. Declaring a resource is declaring
// its kind: its rows and conversions, its unique values, its sort indexes and its listing
// (facets, ranges, words).
type kind[T, R, Q any] struct {
	// Kind is how its items are stored (their keys, sorts and facets), its row conversions and
	// its listing (facets, ranges, words): what the list engine reads.
	lists.Kind[T, R, Q]
	prefix string // the sort key prefix of its rows ("v#": Layout.RowPrefix())
	table  func(Tables) string
	// revision reads a record's revision; withRevision sets it (the store owns revisions).
	revision     func(T) int
	withRevision func(T, int) T
	// guards returns the unique values the record holds (nil for none).
	guards func(T) []guard

	// alarmKey, for records with timed events, reads a row's pending alarm entry (alarms.go): a
	// write is conditioned on it too, so a write and a firing of the same record never both
	// succeed on the same read (the firing changes no revision).
	alarmKey func(R) string

	// names are the attributes a Names read projects: those that name the record in a link (a
	// vehicle's title and plate) and those decode needs; nil reads whole rows.
	names []string
}

// Stored revisions (storeformat.RevAttr): the rev attribute counts the writes after the first.
func revAttr(revision int) int { return storeformat.RevAttr(revision) }
func revisionOf(rev int) int   { return storeformat.RevisionOf(rev) }

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
	s *core
	k *kind[T, R, Q]
}

func (r records[T, R, Q]) table() dynamo.Table { return r.s.db.Dynamo.Table(r.k.table(r.s.db.Tables)) }

// Get returns a team's record (strongly consistent), or KindNotFound.
func (r records[T, R, Q]) Get(ctx context.Context, teamID, id string) (T, error) {
	rec, _, err := r.get(ctx, teamID, id)
	return rec, err
}

// Names returns the team's records of ids (an id given twice is read once: BatchGetItem refuses a
// repeated key; 100 keys to a call, the calls side by side) with the fields that name them (kind.names; every other field is zero), in no
// particular order; an id with no record is left out. The console names linked records with it
// (the board's cards): a projection reads and decodes a few attributes of each row, not its copy
// of the record's every field and search words.
func (r records[T, R, Q]) Names(ctx context.Context, teamID string, ids []string) ([]T, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	chunks := slices.Collect(slices.Chunk(ids, 100))
	got := make([][]R, len(chunks))
	g, gctx := errgroup.WithContext(ctx)
	for i, chunk := range chunks {
		g.Go(func() error {
			keys := make([]dynamo.Keyed, len(chunk))
			for j, id := range chunk {
				keys[j] = dynamo.Keys{teamID, r.k.prefix + id}
			}
			get := r.table().Batch("pk", "sk").Get(keys...)
			if r.k.names != nil {
				get = get.Project(r.k.names...)
			}
			err := get.All(gctx, &got[i])
			if errors.Is(err, dynamo.ErrNotFound) {
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, storecore.Wrap(err, "get "+r.k.What+"s of team", teamID)
	}
	rows := slices.Concat(got...)
	out := make([]T, 0, len(rows))
	for _, row := range rows {
		rec, err := r.k.Decode(row)
		if err != nil {
			return nil, storecore.Wrap(err, "decode "+r.k.What+"s of team", teamID)
		}
		out = append(out, rec)
	}
	return out, nil
}

// Counts returns how many of the team's records have each status, from the maintained counts
// alone (one read of the status shards, no record).
func (r records[T, R, Q]) Counts(ctx context.Context, teamID string) (map[string]int, error) {
	t, err := lists.Tallies(ctx, r.table(), teamID, true, nil)
	if err != nil {
		return nil, storecore.Wrap(err, "count "+r.k.What+"s of team", teamID)
	}
	out := make(map[string]int, len(r.k.List.Statuses))
	for _, st := range r.k.List.Statuses {
		out[st] = t.Status([]string{st})
	}
	return out, nil
}

// Sums returns the maintained counts and sums of a closed facet's values among the records of a
// status, from the status shards in one read (storeformat.CountShards items); ok is false while
// some record of the team is not in the sums yet, or when the kind keeps none.
func (r records[T, R, Q]) Sums(ctx context.Context, teamID, facet, status string) (map[string]patio.Sum, bool, error) {
	if r.k.Layout.Sum == "" {
		return nil, false, nil
	}
	t, err := lists.Tallies(ctx, r.table(), teamID, true, nil)
	if err != nil {
		return nil, false, storecore.Wrap(err, "sum "+r.k.What+"s of team", teamID)
	}
	if t[storeformat.Count{Attr: storeformat.SummedAttr}] < t.Status(r.k.List.Statuses) {
		return nil, false, nil
	}
	out := map[string]patio.Sum{}
	prefix := storeformat.FacetKey(facet, "")
	for k, n := range t {
		value, ok := strings.CutPrefix(k.Attr, prefix)
		if k.Item != "" || !ok || !strings.HasSuffix(value, "#"+status) {
			continue
		}
		value = strings.TrimSuffix(value, "#"+status)
		sum := out[value]
		sum.Count = n
		sum.Amount = money.Cents(t[storeformat.Count{Attr: storeformat.SumPrefix + k.Attr}])
		out[value] = sum
	}
	return out, true, nil
}

// get returns a team's record and its row's item as stored.
func (r records[T, R, Q]) get(ctx context.Context, teamID, id string) (T, dynamo.Item, error) {
	return r.k.Get(ctx, r.table(), teamID, id)
}

// rowItem is a record's row as stored (lists.Kind.Item).
func (r records[T, R, Q]) rowItem(rec T) (dynamo.Item, error) { return r.k.Item(rec) }

// Create stores a new record at revision 1 with its unique values and requirements, in one
// transaction when there is more than the record to write.
func (r records[T, R, Q]) Create(ctx context.Context, w patio.Write[T]) (T, error) {
	rec := r.k.withRevision(w.Record, 1)
	teamID, id := r.k.Key(rec)
	var ops []storecore.Op
	if w.Claim != nil {
		// First, so that a repeat of a creation answers "claimed" before any other condition.
		claim, err := r.s.claimOp(*w.Claim, rec, time.Now())
		if err != nil {
			return rec, storecore.Wrap(err, "create "+r.k.What, id)
		}
		ops = append(ops, claim)
	}
	row, err := r.rowItem(rec)
	if err != nil {
		return rec, storecore.Wrap(err, "encode "+r.k.What, id)
	}
	ops = append(ops, storecore.Op{Put: r.table().Put(storecore.Stamped(ctx, row)).If("attribute_not_exists(pk)"),
		Failed: fmt.Errorf("%s %s already exists", r.k.What, id)})
	ops = append(ops, r.trackOps(teamID, nil, row)...)
	ops = append(ops, r.monthSumOps(teamID, nil, row)...)
	ops = append(ops, r.guardOps(teamID, id, nil, r.k.guards(rec))...)
	more, err := r.s.related(ctx, teamID, w.Requires, w.Also, false)
	if err != nil {
		return rec, storecore.Wrap(err, "create "+r.k.What, id)
	}
	err = r.s.db.Run(ctx, append(ops, more...))
	if errors.Is(err, patio.ErrClaimTaken) {
		return rec, err
	}
	return rec, storecore.Wrap(err, "create "+r.k.What, id)
}

// Update is the one update path of every record type: read the record, ask change for the write,
// and when it changes something write it conditioned on the revision read, with its unique values
// moved and its requirements checked in the same transaction. A lost race re-reads and asks
// again, with jittered backoff, until the request's context or storecore.RaceBudget runs out. The first
// attempt takes the other records it revises to have their whole family (see related); the
// following ones read them.
func (r records[T, R, Q]) Update(ctx context.Context, teamID, id string, change func(T) (patio.Write[T], error)) (T, error) {
	attempts := 0
	return storecore.RetryRaces(ctx, func() (T, error) {
		attempts++
		cur, stored, err := r.get(ctx, teamID, id)
		if err != nil {
			return cur, err
		}
		w, err := change(cur)
		if err != nil || !w.Changed {
			return cur, err
		}
		next := r.k.withRevision(w.Record, r.k.revision(cur)+1)
		if row, copies, ok := r.updateInPlace(teamID, w, stored, cur, next); ok {
			err := r.writeInPlace(ctx, teamID, id, r.k.revision(cur), row, copies)
			return next, storecore.Wrap(err, "update "+r.k.What, id)
		}
		ops, err := r.replace(ctx, teamID, cur, stored, next)
		if err != nil {
			return cur, storecore.Wrap(err, "update "+r.k.What, id)
		}
		more, err := r.s.related(ctx, teamID, w.Requires, w.Also, attempts == 1)
		if err != nil {
			return cur, storecore.Wrap(err, "update "+r.k.What, id)
		}
		return next, storecore.Wrap(r.s.db.RunRace(ctx, append(ops, more...)), "update "+r.k.What, id)
	})
}

// replace is the write of next over cur (stored as its row's item), conditioned on cur's
// revision, with its family and unique values kept in step, by ctx's actor.
func (r records[T, R, Q]) replace(ctx context.Context, teamID string, cur T, stored dynamo.Item, next T) ([]storecore.Op, error) {
	_, id := r.k.Key(next)
	row, err := r.rowItem(next)
	if err != nil {
		return nil, err
	}
	put := r.table().Put(storecore.Stamped(ctx, row)).If("'rev' = ?", revAttr(r.k.revision(cur)))
	if r.k.alarmKey != nil {
		if key := r.k.alarmKey(r.k.Encode(cur)); key != "" {
			put = put.If("'alarm_key' = ?", key)
		} else {
			put = put.If("attribute_not_exists('alarm_key')")
		}
	}
	ops := []storecore.Op{{Put: put, Failed: storecore.ErrRevConflict}}
	ops = append(ops, r.trackOps(teamID, stored, row)...)
	ops = append(ops, r.monthSumOps(teamID, stored, row)...)
	return append(ops, r.guardOps(teamID, id, r.k.guards(cur), r.k.guards(next))...), nil
}

// trackOps keeps the part of a record's family a write's transaction holds (its order item, the
// closed facets' items, the status shards' counts: storeformat.Layout.Split) in step with a write
// of the row next over the row stored (nil for a creation). The indexer keeps the rest from the
// stream (Index).
func (r records[T, R, Q]) trackOps(teamID string, stored, next dynamo.Item) []storecore.Op {
	cur := storeformat.Family{}
	if stored != nil {
		cur = migration.Family(r.k.Layout, stored) // a row of a previous format has less
	}
	cur, _ = r.k.Layout.Split(cur)
	now, _ := r.k.Layout.Split(r.k.Layout.Family(next))
	return lists.FamilyOps(r.table(), teamID, cur, now)
}

// List returns one page of a team's records, the total matching, and the position after it
// (lists.Lister).
func (r records[T, R, Q]) List(ctx context.Context, teamID string, q Q) (patio.Listed[T], error) {
	out, err := lists.Of(&r.s.lists, r.table(), &r.k.Kind).List(ctx, teamID, q)
	return out, storecore.Wrap(err, "list "+r.k.What+"s of team", teamID)
}

// guardOps reserves the unique values next holds that cur did not, and releases those cur held
// that next does not.
func (r records[T, R, Q]) guardOps(teamID, owner string, cur, next []guard) []storecore.Op {
	var ops []storecore.Op
	held := map[string]bool{}
	for _, g := range cur {
		held[g.sk] = true
	}
	kept := map[string]bool{}
	for _, g := range next {
		kept[g.sk] = true
		if !held[g.sk] {
			ops = append(ops, storecore.Op{Put: r.table().Put(guardRow{PK: teamID, SK: g.sk, Owner: owner}).If("attribute_not_exists(pk)"),
				Failed: g.taken})
		}
	}
	for _, g := range cur {
		if !kept[g.sk] {
			ops = append(ops, storecore.Op{Del: r.table().Delete("pk", teamID).Range("sk", g.sk)})
		}
	}
	return ops
}

// related returns the operations for what a write rests on and changes besides its record: its
// requirements (condition checks) and the other records it replaces. How another record's family
// moves depends on its stored row, which the domain's read of it does not carry: unless
// assumeIndexed, the row is read again; with it, the row is taken to have its whole family, as
// the domain's record gives it, and its write is conditioned on that too, which saves that read
// on every write but the rare one over a row awaiting the backfill, whose condition fails like a
// lost race: the caller's next attempt reads it.
func (s *core) related(ctx context.Context, teamID string, reqs []patio.Requirement, also []patio.Revised, assumeIndexed bool) ([]storecore.Op, error) {
	var ops []storecore.Op
	for _, req := range reqs {
		table, prefix, err := s.resource(req.Resource)
		if err != nil {
			return nil, err
		}
		marks, args := placeholders(req.Statuses)
		ops = append(ops, storecore.Op{Check: table.Check("pk", teamID).Range("sk", prefix+req.ID).If("'status' IN ("+marks+")", args...),
			Failed: req.Err})
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
			var stored dynamo.Item
			var err error
			if assumeIndexed {
				stored, err = v.rowItem(cur)
			} else {
				_, stored, err = v.get(ctx, teamID, cur.ID)
			}
			if err != nil {
				return nil, err
			}
			replace, err := v.replace(ctx, teamID, cur, stored, v.k.withRevision(next, v.k.revision(cur)+1))
			if err != nil {
				return nil, err
			}
			if assumeIndexed {
				replace[0].Put = replace[0].Put.If("attribute_exists('" + storeformat.IndexedAttr + "')")
			}
			ops = append(ops, replace...)
		default:
			return nil, fmt.Errorf("dynamostore: cannot revise a %T", rv.Cur)
		}
	}
	return ops, nil
}

// resource returns the table and sort key prefix of a resource's records.
func (s *core) resource(name string) (dynamo.Table, string, error) {
	switch name {
	case patio.ResourceVehicle:
		return s.db.Dynamo.Table(s.db.Tables.Vehicles), storeformat.Vehicles.RowPrefix(), nil
	case patio.ResourceClient:
		return s.db.Dynamo.Table(s.db.Tables.Clients), storeformat.Clients.RowPrefix(), nil
	case patio.ResourceDeal:
		return s.db.Dynamo.Table(s.db.Tables.Deals), storeformat.Deals.RowPrefix(), nil
	}
	return dynamo.Table{}, "", fmt.Errorf("dynamostore: unknown resource %q", name)
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
