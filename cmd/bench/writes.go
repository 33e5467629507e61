package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// The write rate of one team (issue 10). Every write that creates a vehicle or changes its status
// is now one transaction with the vehicle's order item and one of the team's count shards. Before
// lists at any size, a creation was a transaction of the row and its plate guard, and a status
// change (read, then the row conditioned on the revision read) no transaction at all. The rate is
// measured with writeWorkers writers of one team: now (the domain's use cases on the store), as
// before (the previous design's writes, with the bare SDK) and at the floor of a write (the row
// alone); no HTTP, authentication or rate counting on any side, so that the differences are the
// writes'.

// writeWorkers is the number of concurrent writers of the measured team; writeSingle is measured
// too, as the latency of a write without contention.
const (
	writeWorkers = 16
	writeSingle  = 1
)

// toggledPerSide is how many ativo vehicles each side of the status changes toggles: writers take
// one at a time, so no two writers ever change the same vehicle (the writes contend only on what
// the team shares: its count shards).
const toggledPerSide = 20 * writeWorkers

// writeRow is one write at one concurrency.
type writeRow struct {
	name string
	conc int
	res  result
	// Writes made during the run (warm-up included), and the TransactWriteItems calls they sent and
	// saw answered with an error (cancelled: conflicts, then retried).
	calls, txSent, txFailed int64
}

type writeReport struct {
	rows []writeRow
}

// toggled is a vehicle a status-change run owns, with its status.
type toggled struct {
	id, status string
}

// checkout hands each vehicle to one writer at a time.
type checkout chan *toggled

func newCheckout(vs []patio.Vehicle) checkout {
	c := make(checkout, len(vs))
	for _, v := range vs {
		c <- &toggled{id: v.ID, status: v.Status}
	}
	return c
}

// use runs f on a vehicle no other writer holds, then hands it back.
func (c checkout) use(ctx context.Context, f func(v *toggled) error) error {
	select {
	case v := <-c:
		defer func() { c <- v }()
		return f(v)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func otherStatus(status string) string {
	if status == patio.VehicleActive {
		return patio.VehicleReserved
	}
	return patio.VehicleActive
}

// measureWrites creates the writes' team with 2 × toggledPerSide ativo vehicles and measures its
// creates and status changes: now, as before, and at the floor.
func (env *benchEnv) measureWrites(ctx context.Context, o options) (*writeReport, error) {
	wr := &writeReport{}
	if !o.writes {
		return wr, nil
	}
	p, err := createTeam(ctx, env.store, "Bench writes dealership")
	if err != nil {
		return nil, err
	}
	vs, err := historyVehicles(p.teamID, 2*toggledPerSide, 0, time.Now(), func() string { return patio.VehicleActive })
	if err != nil {
		return nil, err
	}
	if _, err := seedAll(ctx, env.store, vs); err != nil {
		return nil, err
	}
	template, err := env.raw.getItem(ctx, env.tables.Vehicles, p.teamID, storeformat.Vehicles.RowKey(vs[0].ID))
	if err != nil {
		return nil, err
	}
	svc := patio.NewVehicles(env.store.Vehicles())
	plates := newCounter(plateIndexWrites)
	now, floor := newCheckout(vs[:toggledPerSide]), newCheckout(vs[toggledPerSide:])
	runs := []struct {
		name string
		call op
	}{
		{"create, now: use case; tx of row, order item, count shard, plate guard", func(ctx context.Context, _ *rand.Rand) error {
			_, err := svc.Create(ctx, p.teamID, benchVehicle(plates.take(), time.Now()))
			return err
		}},
		{"create, before: raw; tx of row, plate guard", func(ctx context.Context, _ *rand.Rand) error {
			item, id, key := vehicleCopy(template, plates.take())
			return env.raw.putWithGuard(ctx, p.teamID, item, id, key)
		}},
		{"create, floor: raw; the row alone (PutItem)", func(ctx context.Context, _ *rand.Rand) error {
			item, _, _ := vehicleCopy(template, plates.take())
			return env.raw.putRow(ctx, item)
		}},
		{"status change, now: use case; read, tx of row, order item moved, count shard", func(ctx context.Context, _ *rand.Rand) error {
			return now.use(ctx, func(v *toggled) error {
				next := otherStatus(v.status)
				if _, err := svc.Update(ctx, p.teamID, v.id, patio.VehicleInput{Status: patio.Some(next)}); err != nil {
					return err
				}
				v.status = next
				return nil
			})
		}},
		{"status change, before = floor: raw; read, the row alone (PutItem if rev)", func(ctx context.Context, _ *rand.Rand) error {
			return floor.use(ctx, func(v *toggled) error {
				next := otherStatus(v.status)
				if err := env.raw.setStatus(ctx, p.teamID, v.id, next); err != nil {
					return err
				}
				v.status = next
				return nil
			})
		}},
	}
	for i, r := range runs {
		for _, c := range []int{writeSingle, writeWorkers} {
			if ctx.Err() != nil {
				return wr, ctx.Err()
			}
			var calls atomic.Int64
			counted := func(ctx context.Context, rng *rand.Rand) error { calls.Add(1); return r.call(ctx, rng) }
			tx0, failed0 := env.rec.txSent.Load(), env.rec.txFailed.Load()
			res := measure(ctx, c, o.warmup, o.duration, uint64(200_000+i*100+c), counted)
			wr.rows = append(wr.rows, writeRow{name: r.name, conc: c, res: res, calls: calls.Load(),
				txSent: env.rec.txSent.Load() - tx0, txFailed: env.rec.txFailed.Load() - failed0})
			progress("writes: %-40.40s c=%-3d p50 %s, %s writes/s (%d)", r.name, c, ms(res.p50), perSecond(res.rps), res.n)
		}
	}
	return wr, nil
}

// putRow is the floor of a creation: a vehicle item put alone, conditioned on its being new (no
// order item, count, plate guard or transaction).
func (r *rawClient) putRow(ctx context.Context, item map[string]types.AttributeValue) error {
	_, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(r.tables.Vehicles),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	return err
}

// setStatus is the floor of a status change as the update path made it before lists at any size:
// read the row (strongly consistent), then put it back with the new status (its index keys' status
// prefix too), the next revision and a new updated_at, conditioned on the revision read; no order
// item, no count, no transaction.
func (r *rawClient) setStatus(ctx context.Context, teamID, id, status string) error {
	item, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
	if err != nil {
		return err
	}
	rev, err := numAttr(item, "rev")
	if err != nil {
		return err
	}
	old := strAttr(item, "status")
	item = replaceInStrings(item, old+"#", status+"#", strAttr(item, "updated_at"), time.Now().UTC().Format("2006-01-02T15:04:05Z"))
	item["status"], item["rev"] = s(status), n(rev+1)
	_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(r.tables.Vehicles),
		Item:                      item,
		ConditionExpression:       aws.String("#rev = :rev"),
		ExpressionAttributeNames:  map[string]string{"#rev": "rev"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":rev": n(rev)},
	})
	return err
}

func printWrites(w io.Writer, wr *writeReport, o options) {
	if wr == nil || len(wr.rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWrite rate of one team (issue 10): %d concurrent writers (and 1 for reference), %s warm-up then %s measured;\n",
		writeWorkers, o.warmup, o.duration)
	fmt.Fprintf(w, "      now: the domain's use cases on the DynamoDB store (%d count shards, each counting every status); before: the previous design's\n", storeformat.CountShards)
	fmt.Fprintln(w, "      writes, raw: with the bare SDK; floor: the row alone, raw; no HTTP, authentication or rate counting on any side;")
	fmt.Fprintf(w, "      status changes toggle ativo ↔ reservado on %d vehicles per side, each held by one writer at a time\n\n", toggledPerSide)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "write\tc\tn\tp50\tp99\twrites/s\ttx/write\ttx cancelled\tfailed\t")
	for _, rw := range wr.rows {
		perWrite := "-"
		if rw.calls > 0 {
			perWrite = fmt.Sprintf("%.2f", float64(rw.txSent)/float64(rw.calls))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t\n", rw.name, rw.conc, rw.res.n, ms(rw.res.p50), ms(rw.res.p99),
			perSecond(rw.res.rps), perWrite, rw.txFailed, rw.res.errors)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "tx/write, tx cancelled: TransactWriteItems per write and those cancelled (conflicts, retried), warm-up included")
	for _, rw := range wr.rows {
		if rw.res.errors > 0 {
			fmt.Fprintf(w, "note: %s c=%d: %d failed writes, first: %v\n", rw.name, rw.conc, rw.res.errors, rw.res.firstErr)
		}
	}
	rate := func(prefix string) float64 {
		for _, rw := range wr.rows {
			if strings.HasPrefix(rw.name, prefix) && rw.conc == writeWorkers {
				return rw.res.rps
			}
		}
		return 0
	}
	change := func(now, then float64) string {
		if now <= 0 || then <= 0 {
			return "-"
		}
		return fmt.Sprintf("%+.0f %%", 100*(now/then-1))
	}
	c, cb, cf := rate("create, now"), rate("create, before"), rate("create, floor")
	fmt.Fprintf(w, "creates with %d writers: now %s/s; before %s/s (now %s); floor %s/s (now %s)\n", writeWorkers,
		perSecond(c), perSecond(cb), change(c, cb), perSecond(cf), change(c, cf))
	sc, sb := rate("status change, now"), rate("status change, before")
	fmt.Fprintf(w, "status changes with %d writers: now %s/s; before = floor %s/s (now %s)\n", writeWorkers,
		perSecond(sc), perSecond(sb), change(sc, sb))
}
