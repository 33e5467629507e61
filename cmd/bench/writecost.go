package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The write cost of a vehicle (issue 24): what a create and an update changing brand and price
// write, in items and in DynamoDB write units, now and in the previous design (lists with status
// ranges, order items and status counts, but no facet or word items). DynamoDB Local reports no
// capacity, so units are computed from the items the store sends, as DynamoDB bills them: a
// transactional write of an item costs 2 units per KB (rounded up) of the item, and each local
// index the item is in 1 unit per KB more (2 when the write moves its entry: a delete and a put).

// writeCost is one write's cost, now and before.
type writeCost struct {
	name                     string
	items, units             int
	beforeItems, beforeUnits int
}

// lsiAttrs are the vehicle table's local index sort key attributes.
var lsiAttrs = []string{"lsi_updated", "lsi_price", "lsi_title", "lsi_year", "lsi_mileage"}

// measureWriteCosts creates a vehicle and then changes its brand and price through the use cases,
// recording the transactions the store sends.
func (env *benchEnv) measureWriteCosts(ctx context.Context) ([]writeCost, error) {
	team, err := storeTeam(ctx, env.store, "Bench write cost")
	if err != nil {
		return nil, err
	}
	svc := patio.NewVehicles(env.store.Vehicles())
	in := benchVehicle(plateIndexWriteCost, time.Now())
	var v patio.Vehicle
	created, err := env.rec.record(func() error {
		var err error
		v, err = svc.Create(ctx, team.ID, in)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write cost: create: %w", err)
	}
	updated, err := env.rec.record(func() error {
		_, err := svc.Update(ctx, team.ID, v.ID, patio.VehicleInput{Brand: patio.Some("Honda"), Price: patio.Some(v.Price + money.Cents(50_000))})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write cost: update: %w", err)
	}
	return []writeCost{costOf("POST /vehicles (create)", created), costOf("PUT /vehicles/{id} (brand and price)", updated)}, nil
}

// costOf is the cost of the transaction among calls, and of what the previous design wrote for
// the same write: the row (without words and the family mark), its order item, and for a creation
// the plate guard and one status shard.
func costOf(name string, calls []sdkCall) writeCost {
	c := writeCost{name: name}
	for _, call := range calls {
		if call.op != "TransactWriteItems" {
			continue
		}
		var txItems []txItem
		if err := json.Unmarshal([]byte(call.body), &struct{ TransactItems *[]txItem }{&txItems}); err != nil {
			panic(fmt.Sprintf("bench: write cost: %v", err))
		}
		for _, ti := range txItems {
			c.items++
			units, before := ti.units()
			c.units += units
			if before {
				c.beforeItems++
				c.beforeUnits += ti.unitsBefore()
			}
		}
	}
	return c
}

// txItem is one item of a TransactWriteItems request as sent (the wire's JSON attribute values).
type txItem struct {
	Put *struct {
		Item map[string]map[string]any
	}
	Delete *struct {
		Key map[string]map[string]any
	}
	Update *struct {
		Key map[string]map[string]any
	}
	ConditionCheck *struct{}
}

// units returns an item's write units now, and whether the previous design wrote it too.
func (ti txItem) units() (int, bool) {
	switch {
	case ti.Put != nil:
		size := wireSize(ti.Put.Item)
		u := 2 * kbUp(size)
		for _, a := range lsiAttrs {
			if _, ok := ti.Put.Item[a]; ok {
				u += kbUp(size)
			}
		}
		sk := wireString(ti.Put.Item["sk"])
		return u, strings.HasPrefix(sk, "v#") || strings.HasPrefix(sk, "vo#") || strings.HasPrefix(sk, "plate#")
	case ti.Delete != nil:
		return 2, strings.HasPrefix(wireString(ti.Delete.Key["sk"]), "vo#")
	case ti.Update != nil:
		sk := wireString(ti.Update.Key["sk"])
		return 2, strings.HasPrefix(sk, "n#")
	}
	return 2, true
}

// unitsBefore is what the previous design paid for the same item: a row or order item without
// the words and the family mark (the row was in every local index, without its "words").
func (ti txItem) unitsBefore() int {
	if ti.Put == nil {
		u, _ := ti.units()
		return u
	}
	it := map[string]map[string]any{}
	for k, v := range ti.Put.Item {
		if k != "words" && k != "indexed" {
			it[k] = v
		}
	}
	u, _ := txItem{Put: &struct{ Item map[string]map[string]any }{it}}.units()
	return u
}

// wireSize is an item's size as DynamoDB bills it: each attribute's name and value in bytes
// (numbers: about one byte per two digits, plus one).
func wireSize(it map[string]map[string]any) int {
	n := 0
	for name, v := range it {
		n += len(name)
		for typ, val := range v {
			switch typ {
			case "S":
				n += len(val.(string))
			case "N":
				n += len(val.(string))/2 + 1
			default:
				b, _ := json.Marshal(val)
				n += len(b)
			}
		}
	}
	return n
}

func kbUp(bytes int) int { return int(math.Ceil(float64(bytes) / 1024)) }

func wireString(v map[string]any) string {
	s, _ := v["S"].(string)
	return s
}

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

// getRecord is GET /<resource>s/{id}: a read of the record.
func (r *rawClient) getRecord(ctx context.Context, p principal, table, resource, id string) error {
	return r.read(ctx, p, func(teamID string) error {
		_, err := r.getItem(ctx, table, teamID, storeformat.Of(resource).RowKey(id))
		return err
	})
}
