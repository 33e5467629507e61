package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The write rate of one team (issue 10) with writeWorkers writers: now (the use cases on the
// store), as before lists at any size and at the floor (the row alone), the last two with the bare
// SDK. Each side of the status changes toggles toggledPerSide vehicles, one writer on each at a time.
const (
	writeWorkers   = 16
	toggledPerSide = 20 * writeWorkers
)

// writeRow is one write at one concurrency, with its writes and transactions (warm-up included).
type writeRow struct {
	name                    string
	conc                    int
	res                     result
	calls, txSent, txFailed int64
}

// writeReport is the write rate's rows.
type writeReport struct{ rows []writeRow }

// toggled is a vehicle a status-change run owns, with its status.
type toggled struct{ id, status string }

// checkout hands each vehicle to one writer at a time.
type checkout chan *toggled

// newCheckout returns a checkout of vs.
func newCheckout(vs []patio.Vehicle) checkout {
	c := make(checkout, len(vs))
	for _, v := range vs {
		c <- &toggled{id: v.ID, status: v.Status}
	}
	return c
}

// toggle changes the status of a vehicle no other writer holds with set (ativo ↔ reservado).
func (c checkout) toggle(ctx context.Context, set func(id, status string) error) error {
	select {
	case v := <-c:
		defer func() { c <- v }()
		next := patio.VehicleActive
		if v.status == patio.VehicleActive {
			next = patio.VehicleReserved
		}
		if err := set(v.id, next); err != nil {
			return err
		}
		v.status = next
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// measureWrites measures creates and status changes of a team of their own.
func (env *benchEnv) measureWrites(ctx context.Context, o options) *writeReport {
	wr := &writeReport{}
	if !o.writes {
		return wr
	}
	p := createTeam(ctx, env.store, "Bench writes dealership")
	vs := historyVehicles(p.teamID, 2*toggledPerSide, 0, time.Now(), always(patio.VehicleActive))
	seedAll(ctx, env.store, vs)
	template := must(env.raw.vehicleItem(ctx, p.teamID, vs[0].ID))
	svc := patio.NewVehicles(env.store.Vehicles())
	plates := newCounter(plateIndexWrites)
	now, floor := newCheckout(vs[:toggledPerSide]), newCheckout(vs[toggledPerSide:])
	runs := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"create, now: use case; tx of row, order item, status shard, plate guard (the indexer: the rest)", func(ctx context.Context) error {
			_, err := svc.Create(ctx, p.teamID, benchVehicle(plates.take(), time.Now()))
			return err
		}},
		{"create, before: raw; tx of row, plate guard", func(ctx context.Context) error {
			item, id, key := vehicleCopy(template, plates.take())
			return env.raw.putWithGuard(ctx, p.teamID, item, id, key)
		}},
		{"create, floor: raw; the row alone (PutItem)", func(ctx context.Context) error {
			item, _, _ := vehicleCopy(template, plates.take())
			return env.raw.putItem(ctx, &types.Put{TableName: aws.String(env.tables.Vehicles), Item: item,
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
		}},
		{"status change, now: use case; read, tx of row, order item moved, status shard", func(ctx context.Context) error {
			return now.toggle(ctx, func(id, status string) error {
				_, err := svc.Update(ctx, p.teamID, id, patio.VehicleInput{Status: patio.Some(status)})
				return err
			})
		}},
		{"status change, before = floor: raw; read, the row alone (PutItem if rev)", func(ctx context.Context) error {
			return floor.toggle(ctx, func(id, status string) error { return env.raw.setStatus(ctx, p.teamID, id, status) })
		}},
	}
	for i, r := range runs {
		for _, c := range []int{1, writeWorkers} {
			check(ctx.Err())
			var calls atomic.Int64
			counted := func(ctx context.Context, _ *rand.Rand) error { calls.Add(1); return r.call(ctx) }
			tx0, failed0 := env.rec.txSent.Load(), env.rec.txFailed.Load()
			res := measure(ctx, c, o.warmup, o.duration, uint64(200_000+i*100+c), counted)
			wr.rows = append(wr.rows, writeRow{name: r.name, conc: c, res: res, calls: calls.Load(),
				txSent: env.rec.txSent.Load() - tx0, txFailed: env.rec.txFailed.Load() - failed0})
			progress("writes: %-40.40s c=%-3d p50 %s, %s writes/s (%d)", r.name, c, ms(res.p50), perSecond(res.rps), res.n)
		}
	}
	return wr
}

// printWrites prints the write rate's table and its comparisons.
func printWrites(w io.Writer, wr *writeReport, o options) {
	if wr == nil || len(wr.rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWrite rate of one team (issue 10): %d concurrent writers (and 1 for reference), %s warm-up then %s measured;\n",
		writeWorkers, o.warmup, o.duration)
	fmt.Fprintf(w, "      now: the domain's use cases on the DynamoDB store (%d count shards, each counting every status); before: the previous design's\n", storeformat.CountShards)
	fmt.Fprintln(w, "      writes, raw: with the bare SDK; floor: the row alone, raw; no HTTP, authentication or rate counting on any side;")
	fmt.Fprintf(w, "      status changes toggle ativo ↔ reservado on %d vehicles per side, each held by one writer at a time\n\n", toggledPerSide)
	tw := table(w, "write\tc\tn\tp50\tp99\twrites/s\ttx/write\ttx cancelled\tfailed\t")
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
	if c > 0 && cb > 0 {
		fmt.Fprintf(w, "  %s  creates with %d writers = %.2f × the floor's, a tx of the row and its plate guard (≥ 0.6)\n",
			verdict(c >= 0.6*cb), writeWorkers, c/cb)
	}
	sc, sb := rate("status change, now"), rate("status change, before")
	fmt.Fprintf(w, "status changes with %d writers: now %s/s; before = floor %s/s (now %s)\n", writeWorkers,
		perSecond(sc), perSecond(sb), change(sc, sb))
}

// The write cost of a vehicle (issue 24), now and in the previous design (no facet or word items):
// DynamoDB Local reports no capacity, so units are computed from the items the store sends.

// writeCost is one write's cost, now and before.
type writeCost struct {
	name                     string
	items, units             int
	beforeItems, beforeUnits int
}

// lsiAttrs are the vehicle table's local index sort key attributes.
var lsiAttrs = []string{"lsi_updated", "lsi_price", "lsi_title", "lsi_year", "lsi_mileage"}

// measureWriteCosts records the transactions of a vehicle's create and brand and price update.
func (env *benchEnv) measureWriteCosts(ctx context.Context) []writeCost {
	team := storeTeam(ctx, env.store, "Bench write cost")
	svc := patio.NewVehicles(env.store.Vehicles())
	var v patio.Vehicle
	created, err := env.rec.record(func() (err error) {
		v, err = svc.Create(ctx, team.ID, benchVehicle(plateIndexWriteCost, time.Now()))
		return err
	})
	if err != nil {
		check(fmt.Errorf("write cost: create: %w", err))
	}
	updated, err := env.rec.record(func() error {
		_, err := svc.Update(ctx, team.ID, v.ID, patio.VehicleInput{Brand: patio.Some("Honda"), Price: patio.Some(v.Price + money.Cents(50_000))})
		return err
	})
	if err != nil {
		check(fmt.Errorf("write cost: update: %w", err))
	}
	return []writeCost{costOf("POST /vehicles (create)", created), costOf("PUT /vehicles/{id} (brand and price)", updated)}
}

// wireItem is an item as sent (the wire's JSON attribute values).
type wireItem = map[string]map[string]any

// costOf is the cost of the transaction among calls, and of the previous design's items of it.
func costOf(name string, calls []sdkCall) writeCost {
	c := writeCost{name: name}
	for _, call := range calls {
		if call.op != "TransactWriteItems" {
			continue
		}
		var tx struct {
			TransactItems []struct {
				Put            *struct{ Item wireItem }
				Delete, Update *struct{ Key wireItem }
			}
		}
		if err := json.Unmarshal([]byte(call.body), &tx); err != nil {
			panic(fmt.Sprintf("bench: write cost: %v", err))
		}
		for _, ti := range tx.TransactItems {
			c.items++
			units, before := 2, true
			switch {
			case ti.Put != nil:
				sk := wireString(ti.Put.Item["sk"])
				units, before = putUnits(ti.Put.Item), strings.HasPrefix(sk, "v#") || strings.HasPrefix(sk, "vo#") || strings.HasPrefix(sk, "plate#")
			case ti.Delete != nil:
				before = strings.HasPrefix(wireString(ti.Delete.Key["sk"]), "vo#")
			case ti.Update != nil:
				before = strings.HasPrefix(wireString(ti.Update.Key["sk"]), "n#")
			}
			c.units += units
			if before {
				c.beforeItems++
				c.beforeUnits += units
				if ti.Put != nil { // the previous design's row or order item had no words and no family mark
					it := wireItem{}
					for k, v := range ti.Put.Item {
						if k != "words" && k != "indexed" {
							it[k] = v
						}
					}
					c.beforeUnits += putUnits(it) - units
				}
			}
		}
	}
	return c
}

// putUnits is a transactional put's write units: 2 per KB of the item, 1 more per KB per local index.
func putUnits(item wireItem) int {
	size := 0 // as DynamoDB bills it: each attribute's name and value (numbers: a byte per two digits, plus one)
	for name, v := range item {
		size += len(name)
		for typ, val := range v {
			switch typ {
			case "S":
				size += len(val.(string))
			case "N":
				size += len(val.(string))/2 + 1
			default:
				b, _ := json.Marshal(val)
				size += len(b)
			}
		}
	}
	kb := int(math.Ceil(float64(size) / 1024))
	u := 2 * kb
	for _, a := range lsiAttrs {
		if _, ok := item[a]; ok {
			u += kb
		}
	}
	return u
}

// wireString is a wire attribute value's string.
func wireString(v map[string]any) string {
	s, _ := v["S"].(string)
	return s
}

// printWriteCosts prints the write cost of a vehicle.
func printWriteCosts(w io.Writer, costs []writeCost) {
	if len(costs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWrite cost of a vehicle (issue 24), from the transaction the store sends; units as DynamoDB bills a transactional write")
	fmt.Fprintln(w, "(2 per KB of each item, 1 more per KB for each local index it is in); before: the previous design's items of the same write")
	for _, c := range costs {
		fmt.Fprintf(w, "  %-40s now %2d items, %3d write units; before %2d items, %3d write units (×%.1f)\n", c.name, c.items, c.units,
			c.beforeItems, c.beforeUnits, float64(c.units)/float64(max(c.beforeUnits, 1)))
	}
}
