package main

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The store's item format (docs/storage.md), as the bench needs it: for the raw sides, which
// issue the store's calls with the bare SDK, and for bulk seeding, which writes a dealership's
// history in the store's own format with batch writes rather than one transaction per record.
// It mirrors shared/dynamostore, which exports none of it: checkStoreFormat (seed.go) compares
// what it builds with what the store writes, and the bench stops when they differ.

// storeClientOptions configures the raw client as shared/dynamostore.New configures the store's:
// at most 3 attempts with short backoff and no client-side retry quota.
func storeClientOptions(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = 3
		so.MaxBackoff = 200 * time.Millisecond
		so.RateLimiter = ratelimit.None
	})
}

// item is one stored item.
type item = map[string]types.AttributeValue

// countShards is the number of counter shards a write draws from.
const countShards = 4

// resourceFormat is how one resource is stored.
type resourceFormat struct {
	letter string // "v": rows "v#<id>", order items "vo#", facet items "vf#", word items "vw#"
	sorts  map[string]sortIndex
	facets []facetFormat
}

// sortIndex is a sort field's local index (none for creation order) and its sort key attribute.
type sortIndex struct {
	index, attr string
	optional    bool
}

// facetFormat is an equality filter with items and counts of its own.
type facetFormat struct {
	name, attr string
	closed     bool // counted in the status shards
}

var formats = map[string]resourceFormat{
	patio.ResourceVehicle: {letter: "v", sorts: map[string]sortIndex{
		"created_at": {}, "updated_at": {"by_updated", "lsi_updated", false}, "price": {"by_price", "lsi_price", false},
		"title": {"by_title", "lsi_title", false}, "model_year": {"by_year", "lsi_year", true},
		"mileage_km": {"by_mileage", "lsi_mileage", true},
	}, facets: []facetFormat{{"phase", "phase", true}, {"fuel", "fuel", true}, {"brand", "f_brand", false}, {"model", "f_model", false}}},
	patio.ResourceClient: {letter: "c", sorts: map[string]sortIndex{
		"created_at": {}, "updated_at": {"by_updated", "lsi_updated", false}, "name": {"by_name", "lsi_name", false},
	}, facets: []facetFormat{{"type", "type", true}}},
	patio.ResourceDeal: {letter: "d", sorts: map[string]sortIndex{
		"created_at": {}, "updated_at": {"by_updated", "lsi_updated", false}, "value": {"by_value", "lsi_value", true},
		"title": {"by_title", "lsi_title", false}, "expected_close_date": {"by_close_date", "lsi_close", true},
	}, facets: []facetFormat{{"phase", "phase", true}, {"client_id", "client_id", false}, {"vehicle_id", "vehicle_id", false}}},
}

// recordKey is the sort key of a record's row.
func recordKey(resource, id string) string { return formats[resource].letter + "#" + id }

// orderKey is the sort key of a record's order item, which places it in creation order among the
// records of its status.
func orderKey(resource, status, id string) string {
	return formats[resource].letter + "o#" + status + "#" + id
}

// plateGuardKey is the sort key of the guard item reserving a plate (its uniqueness key).
func plateGuardKey(plateKey string) string { return "plate#" + plateKey }

// countKey is the sort key of a team's status shard number shard.
func countKey(shard int) string { return "n#" + strconv.Itoa(shard) }

// listRange returns the range the store reads first for a page of a resource's list sorted by
// field showing status, the rows' or, with facet "<name>=<value>", that facet value's: the local
// index ("" for the base table), its sort key attribute, and the inclusive bounds of the records
// that have a value in field.
func listRange(resource, field, status, facet string) (index, attr, lo, hi string) {
	f := formats[resource]
	ix, ok := f.sorts[field]
	if !ok {
		panic(fmt.Sprintf("bench: %s has no sort %q", resource, field))
	}
	prefix := ""
	if facet != "" {
		prefix = facet + "#"
	}
	if ix.index == "" {
		base := f.letter + "o#" + status + "#"
		if facet != "" {
			base = f.letter + "f#" + prefix + status + "#"
		}
		return "", "sk", base, base + "\U0010FFFF"
	}
	base := prefix + status + "#1"
	return ix.index, ix.attr, base + "#", base + "$"
}

// sortKey is a record's index sort key: "<status>#1#<value>\x01<id>", "<status>#0#<id>" without a
// value.
func sortKey(status string, value *string, id string) string {
	if value == nil {
		return status + "#0#" + id
	}
	return status + "#1#" + strings.Map(func(r rune) rune {
		if r < 0x20 {
			return -1
		}
		return r
	}, *value) + "\x01" + id
}

func padded(width int, n int64) *string { v := fmt.Sprintf("%0*d", width, n); return &v }

func folded(s string) *string { f := patio.Fold(s); return &f }

// put sets an attribute when the value is set: a string (kept empty when keepEmpty), an int, an
// int64, or a pointer to one of them (absent when nil).
func put(it item, name string, v any, keepEmpty bool) {
	switch x := v.(type) {
	case *string:
		if x != nil {
			put(it, name, *x, keepEmpty)
		}
	case *int:
		if x != nil {
			put(it, name, *x, false)
		}
	case *int64:
		if x != nil {
			put(it, name, *x, false)
		}
	case string:
		if x != "" || keepEmpty {
			it[name] = s(x)
		}
	case int:
		it[name] = n(x)
	case int64:
		it[name] = &types.AttributeValueMemberN{Value: strconv.FormatInt(x, 10)}
	default:
		panic(fmt.Sprintf("bench: attribute %s of type %T", name, v))
	}
}

func tsPtr(t *patio.Timestamp) *string {
	if t == nil {
		return nil
	}
	v := t.String()
	return &v
}

func centsPtr(c *money.Cents) *int64 {
	if c == nil {
		return nil
	}
	v := int64(*c)
	return &v
}

// listed completes a row with what every listed record's row carries: its words and the mark of
// a complete family.
func listed(row item, words []string) item {
	if len(words) > 0 {
		row["words"] = s(" " + strings.Join(words, " ") + " ")
	}
	row["indexed"] = n(1)
	return row
}

// vehicleRow is a vehicle's row.
func vehicleRow(v patio.Vehicle) item {
	it := item{"pk": s(v.TeamID), "sk": s(recordKey(patio.ResourceVehicle, v.ID))}
	put(it, "id", v.ID, false)
	put(it, "title", v.Title, false)
	put(it, "brand", v.Brand, false)
	put(it, "model", v.Model, false)
	put(it, "version", v.Version, true)
	put(it, "plate", v.Plate, false)
	put(it, "plate_key", v.PlateKey(), false)
	put(it, "renavam", v.Renavam, false)
	put(it, "vin", v.VIN, false)
	put(it, "manufacture_year", v.ManufactureYear, false)
	put(it, "model_year", v.ModelYear, false)
	put(it, "mileage_km", v.MileageKm, false)
	put(it, "color", v.Color, true)
	put(it, "fuel", v.Fuel, false)
	put(it, "transmission", v.Transmission, false)
	put(it, "price_cents", int64(v.Price), false)
	put(it, "purchase_price_cents", centsPtr(v.PurchasePrice), false)
	put(it, "phase", v.Phase, false)
	put(it, "status", v.Status, false)
	put(it, "description", v.Description, true)
	put(it, "sold_at", tsPtr(v.SoldAt), false)
	put(it, "sold_deal_id", v.SoldDealID, false)
	put(it, "created_at", v.CreatedAt.String(), false)
	put(it, "updated_at", v.UpdatedAt.String(), false)
	put(it, "rev", v.Revision-1, false)
	put(it, "f_brand", patio.Fold(v.Brand), false)
	put(it, "f_model", patio.Fold(v.Model), false)
	year := func(n *int, width int) *string {
		if n == nil {
			return nil
		}
		return padded(width, int64(*n))
	}
	updated := v.UpdatedAt.String()
	put(it, "lsi_updated", sortKey(v.Status, &updated, v.ID), false)
	put(it, "lsi_price", sortKey(v.Status, padded(12, int64(v.Price)), v.ID), false)
	put(it, "lsi_title", sortKey(v.Status, folded(v.Title), v.ID), false)
	put(it, "lsi_year", sortKey(v.Status, year(v.ModelYear, 4), v.ID), false)
	put(it, "lsi_mileage", sortKey(v.Status, year(v.MileageKm, 19), v.ID), false)
	return listed(it, v.Words())
}

// clientRow is a client's row (the members the bench's clients have: type, name, document, email).
func clientRow(c patio.Client) item {
	it := item{"pk": s(c.TeamID), "sk": s(recordKey(patio.ResourceClient, c.ID))}
	put(it, "id", c.ID, false)
	put(it, "type", c.Type, false)
	put(it, "name", c.Name, false)
	put(it, "trade_name", c.TradeName, true)
	put(it, "cpf", c.CPF, false)
	put(it, "cnpj", c.CNPJ, false)
	put(it, "email", c.Email, false)
	put(it, "phone", c.Phone, false)
	put(it, "state_registration", c.StateRegistration, false)
	put(it, "notes", c.Notes, true)
	put(it, "status", c.Status, false)
	put(it, "created_at", c.CreatedAt.String(), false)
	put(it, "updated_at", c.UpdatedAt.String(), false)
	put(it, "rev", c.Revision-1, false)
	updated := c.UpdatedAt.String()
	put(it, "lsi_updated", sortKey(c.Status, &updated, c.ID), false)
	put(it, "lsi_name", sortKey(c.Status, folded(c.Name), c.ID), false)
	return listed(it, c.Words())
}

// dealRow is a deal's row (the members the bench's deals have).
func dealRow(d patio.Deal) item {
	it := item{"pk": s(d.TeamID), "sk": s(recordKey(patio.ResourceDeal, d.ID))}
	put(it, "id", d.ID, false)
	put(it, "title", d.Title, false)
	put(it, "client_id", d.ClientID, false)
	put(it, "vehicle_id", d.VehicleID, false)
	put(it, "value_cents", centsPtr(d.Value), false)
	put(it, "phase", d.Phase, false)
	put(it, "status", d.Status, false)
	put(it, "lost_reason", d.LostReason, false)
	put(it, "payment_method", d.PaymentMethod, false)
	put(it, "notes", d.Notes, true)
	put(it, "closed_at", tsPtr(d.ClosedAt), false)
	put(it, "created_at", d.CreatedAt.String(), false)
	put(it, "updated_at", d.UpdatedAt.String(), false)
	put(it, "rev", d.Revision-1, false)
	var value, closeDate *string
	if d.Value != nil {
		value = padded(12, int64(*d.Value))
	}
	if d.ExpectedCloseDate != nil {
		v := d.ExpectedCloseDate.String()
		closeDate = &v
	}
	updated := d.UpdatedAt.String()
	put(it, "lsi_updated", sortKey(d.Status, &updated, d.ID), false)
	put(it, "lsi_value", sortKey(d.Status, value, d.ID), false)
	put(it, "lsi_title", sortKey(d.Status, folded(d.Title), d.ID), false)
	put(it, "lsi_close", sortKey(d.Status, closeDate, d.ID), false)
	it = listed(it, d.Words())
	it["summed"] = n(1) // its value is in the phases' sums
	return it
}

// countRef is one number a record adds to: attr of its status shard (item "") or of an open facet
// value's counter item (item "<facet>=<value>", sort key "nf#<item>#<shard>").
type countRef struct{ item, attr string }

// family is what the store keeps beside a record's row: its order item, facet items and word
// items, and the counts it adds to.
type family struct {
	items  []item
	counts map[countRef]int
}

// familyOf derives a row's family, as the store does.
func familyOf(resource string, row item) family {
	f := formats[resource]
	status, id, teamID := strAttr(row, "status"), strAttr(row, "id"), strAttr(row, "pk")
	indexAttrs := map[string]bool{}
	for _, ix := range f.sorts {
		if ix.index != "" {
			indexAttrs[ix.attr] = true
		}
	}
	copied := item{}
	for k, v := range row {
		if !indexAttrs[k] && k != "indexed" && k != "summed" {
			copied[k] = v
		}
	}
	order := maps.Clone(copied)
	order["sk"] = s(orderKey(resource, status, id))
	out := family{items: []item{order}, counts: map[countRef]int{{attr: status}: 1, {attr: "indexed"}: 1}}
	amount := 0
	if _, ok := row["summed"]; ok {
		out.counts[countRef{attr: "summed"}] = 1
		if v, ok := row["value_cents"].(*types.AttributeValueMemberN); ok {
			amount, _ = strconv.Atoi(v.Value)
		}
	}
	for _, fc := range f.facets {
		value := strAttr(row, fc.attr)
		if value == "" {
			continue
		}
		key := fc.name + "=" + strings.ReplaceAll(value, "#", "\x1e")
		it := maps.Clone(copied)
		it["sk"] = s(f.letter + "f#" + key + "#" + status + "#" + id)
		for attr := range indexAttrs {
			if v := strAttr(row, attr); v != "" {
				it[attr] = s(key + "#" + v)
			}
		}
		out.items = append(out.items, it)
		if fc.closed {
			out.counts[countRef{attr: key + "#" + status}]++
			if amount != 0 {
				out.counts[countRef{attr: "sum#" + key + "#" + status}] += amount
			}
		} else {
			out.counts[countRef{item: key, attr: status}]++
		}
	}
	for _, w := range strings.Fields(strAttr(row, "words")) {
		out.items = append(out.items, item{"pk": s(teamID), "sk": s(f.letter + "w#" + status + "#" + w + "#" + id)})
	}
	return out
}

// counterUpdate is the update adding counts to one counter item of a team in one shard.
func counterUpdate(table, teamID string, shard int, of string, counts map[string]int) *types.Update {
	sk := countKey(shard)
	if of != "" {
		sk = "nf#" + of + "#" + strconv.Itoa(shard)
	}
	names := slices.Sorted(maps.Keys(counts))
	var parts []string
	attrNames := map[string]string{}
	values := map[string]types.AttributeValue{}
	for i, name := range names {
		attrNames["#a"+strconv.Itoa(i)] = name
		values[":v"+strconv.Itoa(i)] = n(counts[name])
		parts = append(parts, "#a"+strconv.Itoa(i)+" :v"+strconv.Itoa(i))
	}
	return &types.Update{TableName: &table, Key: item{"pk": s(teamID), "sk": s(sk)},
		UpdateExpression: ptrTo("ADD " + strings.Join(parts, ", ")), ExpressionAttributeNames: attrNames,
		ExpressionAttributeValues: values}
}

func ptrTo[T any](v T) *T { return &v }

// checkStoreFormat writes a few records of each resource through the store (the write path of
// every create) and compares every item it wrote with what this mirror builds for those records,
// counts included: the bench stops when the mirror has drifted from shared/dynamostore, rather
// than measure lists over data the store would not have written.
func (env *benchEnv) checkStoreFormat(ctx context.Context) error {
	team, err := storeTeam(ctx, env.store, "Bench format check")
	if err != nil {
		return err
	}
	now := time.Now()
	vs, err := historyVehicles(team.ID, 3, now, cycle(patio.VehicleSold, patio.VehicleArchived, patio.VehicleActive))
	if err != nil {
		return err
	}
	var vrows []item
	var vguards []item
	for _, v := range vs {
		got, err := env.store.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: v, Changed: true})
		if err != nil {
			return fmt.Errorf("format check: create vehicle: %w", err)
		}
		vrows = append(vrows, vehicleRow(got))
		vguards = append(vguards, item{"pk": s(team.ID), "sk": s(plateGuardKey(got.PlateKey())), "owner": s(got.ID)})
	}
	var crows, cguards []item
	for i, c := range historyClients(team.ID, 2, now, cycle(patio.ClientActive, patio.ClientInactive)) {
		got, err := env.store.Clients().Create(ctx, patio.Write[patio.Client]{Record: c, Changed: true})
		if err != nil {
			return fmt.Errorf("format check: create client %d: %w", i, err)
		}
		crows = append(crows, clientRow(got))
		kind, value := got.Document()
		cguards = append(cguards, item{"pk": s(team.ID), "sk": s(kind + "#" + value), "owner": s(got.ID)})
	}
	var drows []item
	for _, d := range historyDeals(team.ID, 3, now, []string{crows[0]["id"].(*types.AttributeValueMemberS).Value}) {
		got, err := env.store.Deals().Create(ctx, patio.Write[patio.Deal]{Record: d, Changed: true})
		if err != nil {
			return fmt.Errorf("format check: create deal: %w", err)
		}
		drows = append(drows, dealRow(got))
	}
	for _, c := range []struct {
		table, resource string
		rows, guards    []item
	}{
		{env.tables.Vehicles, patio.ResourceVehicle, vrows, vguards},
		{env.tables.Clients, patio.ResourceClient, crows, cguards},
		{env.tables.Deals, patio.ResourceDeal, drows, nil},
	} {
		if err := env.raw.compareStored(ctx, c.table, c.resource, team.ID, c.rows, c.guards); err != nil {
			return fmt.Errorf("bench: the bench's copy of the store's item format (storeformat.go) has drifted from shared/dynamostore: %w", err)
		}
	}
	return nil
}

// compareStored compares every item of a team's partition with the items and counts the mirror
// builds for rows (and the guards given).
func (r *rawClient) compareStored(ctx context.Context, table, resource, teamID string, rows, guards []item) error {
	want := map[string]item{}
	counts := map[countRef]int{}
	for _, row := range append(slices.Clone(rows), guards...) {
		want[strAttr(row, "sk")] = row
	}
	for _, row := range rows {
		f := familyOf(resource, row)
		for _, it := range f.items {
			want[strAttr(it, "sk")] = it
		}
		for k, v := range f.counts {
			counts[k] += v
		}
	}
	p := dynamodb.NewQueryPaginator(r.db, &dynamodb.QueryInput{TableName: &table, ConsistentRead: ptrTo(true),
		KeyConditionExpression: ptrTo("pk = :pk"), ExpressionAttributeValues: item{":pk": s(teamID)}})
	stored := map[countRef]int{}
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, got := range out.Items {
			sk := strAttr(got, "sk")
			if of, ok := counterOf(sk); ok {
				for name, v := range got {
					if name != "pk" && name != "sk" {
						count, err := strconv.Atoi(v.(*types.AttributeValueMemberN).Value)
						if err != nil {
							return err
						}
						stored[countRef{item: of, attr: name}] += count
					}
				}
				continue
			}
			w, ok := want[sk]
			if !ok {
				return fmt.Errorf("%s: the store wrote %s, which the mirror does not", resource, sk)
			}
			if !reflect.DeepEqual(w, got) {
				return fmt.Errorf("%s item %s: the store wrote %v; the mirror builds %v", resource, sk, got, w)
			}
			delete(want, sk)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("%s: the mirror builds %v, which the store did not write", resource, slices.Sorted(maps.Keys(want)))
	}
	maps.DeleteFunc(stored, func(_ countRef, v int) bool { return v == 0 })
	if !maps.Equal(stored, counts) {
		return fmt.Errorf("%s: the store counted %v; the mirror counts %v", resource, stored, counts)
	}
	return nil
}

// counterOf tells a counter item by its sort key, and what it counts ("" for a status shard).
func counterOf(sk string) (string, bool) {
	switch {
	case strings.HasPrefix(sk, "n#"):
		return "", true
	case strings.HasPrefix(sk, "nf#"):
		return sk[len("nf#"):strings.LastIndexByte(sk, '#')], true
	}
	return "", false
}

// cycle returns a status function that hands out statuses in turn.
func cycle(statuses ...string) func() string {
	i := 0
	return func() string {
		s := statuses[i%len(statuses)]
		i++
		return s
	}
}
