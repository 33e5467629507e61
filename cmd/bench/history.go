package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// historySpan is how far back a seeded team's history goes: its vehicles were created evenly over
// it, oldest first.
const historySpan = 5 * 365 * 24 * time.Hour

// historyStatus returns the status of a seeded vehicle as a dealership's history has them: 45 %
// vendido, 45 % arquivado, 5 % ativo and 5 % reservado, drawn from rng.
func historyStatus(rng *rand.Rand) string {
	switch n := rng.IntN(20); {
	case n < 9:
		return patio.VehicleSold
	case n < 18:
		return patio.VehicleArchived
	case n == 18:
		return patio.VehicleActive
	default:
		return patio.VehicleReserved
	}
}

// historyVehicles returns n valid vehicles of a team (patio.NewVehicle, plates of plate indexes
// 0 to n-1), created evenly over historySpan up to end, each with a UUIDv7 of its creation
// instant as the API would have given it, and the status status returns for it: sold ones were
// sold (sold_at, phase entregue) and archived ones archived up to 90 days after their creation.
func historyVehicles(teamID string, n int, end time.Time, status func() string) ([]patio.Vehicle, error) {
	step := historySpan / time.Duration(n)
	rng := rand.New(rand.NewPCG(uint64(n), 10))
	out := make([]patio.Vehicle, n)
	for i := range out {
		created := end.Add(-step * time.Duration(n-i))
		v, err := patio.NewVehicle(teamID, uuidAt(created), created, benchVehicle(i, created))
		if err != nil {
			return nil, fmt.Errorf("history vehicle %d: %w", i, err)
		}
		v.Status = status()
		later := created.Add(time.Duration(1+rng.IntN(90)) * 24 * time.Hour)
		if later.After(end) {
			later = end
		}
		switch v.Status {
		case patio.VehicleSold:
			ts := patio.NewTimestamp(later)
			v.SoldAt, v.Phase, v.UpdatedAt = &ts, "entregue", ts
		case patio.VehicleArchived:
			v.UpdatedAt = patio.NewTimestamp(later)
		}
		out[i] = v
	}
	return out, nil
}

// uuidAt returns a UUIDv7 whose timestamp is t (millisecond precision), as patio.NewID gives at t.
func uuidAt(t time.Time) string {
	u := uuid.Must(uuid.NewV7())
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(u[:6], ms[2:])
	return u.String()
}

// importWorkers and importChunk shape bulk seeding (importRecords): chunks of records written
// side by side.
const (
	importWorkers = 4
	importChunk   = 500
)

// importVehicles bulk-loads vs into the team in the store's own item format.
func (env *benchEnv) importVehicles(ctx context.Context, teamID string, vs []patio.Vehicle) error {
	return env.importRecords(ctx, env.tables.Vehicles, patio.ResourceVehicle, teamID, len(vs), func(i int) (item, []item, error) {
		v := vs[i]
		v.Revision = max(v.Revision, 1)
		var guards []item
		if key := v.PlateKey(); key != "" {
			guards = append(guards, item{"pk": s(teamID), "sk": s(storeformat.PlateGuardKey(key)), "owner": s(v.ID)})
		}
		row, err := storeformat.VehicleItem(v)
		return row, guards, err
	})
}

// importClients bulk-loads a team's clients, each with its document's guard.
func (env *benchEnv) importClients(ctx context.Context, teamID string, cs []patio.Client) error {
	return env.importRecords(ctx, env.tables.Clients, patio.ResourceClient, teamID, len(cs), func(i int) (item, []item, error) {
		c := cs[i]
		c.Revision = 1
		kind, value := c.Document()
		row, err := storeformat.ClientItem(c)
		return row, []item{{"pk": s(teamID), "sk": s(storeformat.DocumentGuardKey(kind, value)), "owner": s(c.ID)}}, err
	})
}

// importDeals bulk-loads a team's deals.
func (env *benchEnv) importDeals(ctx context.Context, teamID string, ds []patio.Deal) error {
	return env.importRecords(ctx, env.tables.Deals, patio.ResourceDeal, teamID, len(ds), func(i int) (item, []item, error) {
		d := ds[i]
		d.Revision = 1
		row, err := storeformat.DealItem(d)
		return row, nil, err
	})
}

// importRecords bulk-loads n records of one resource into a team in the store's own item format
// (shared/dynamostore/storeformat: rows, order, facet and word items, guards, counts), with batch writes rather
// than one transaction per record: many times faster than creating them one by one. Each count is
// spread over all the counter shards, as a team's concurrent writes leave it, so that what reads
// the counts (every list) reads what it reads in production. It checks nothing and is not atomic:
// the records must be new, valid, of the team, with distinct unique values.
func (env *benchEnv) importRecords(ctx context.Context, table, resource, teamID string, n int, build func(i int) (row item, guards []item, err error)) error {
	counts := map[storeformat.Count]int{}
	var mu sync.Mutex
	chunks := (n + importChunk - 1) / importChunk
	err := parallel(ctx, chunks, importWorkers, func(ctx context.Context, c int) error {
		var items []item
		local := map[storeformat.Count]int{}
		for i := c * importChunk; i < min((c+1)*importChunk, n); i++ {
			row, guards, err := build(i)
			if err != nil {
				return fmt.Errorf("bench: import: %w", err)
			}
			if strAttr(row, "pk") != teamID {
				return fmt.Errorf("bench: import a record of team %s into team %s", strAttr(row, "pk"), teamID)
			}
			f := familyOf(resource, row)
			items = append(items, row)
			for _, family := range []map[string]item{f.Copies, f.Words} {
				for _, sk := range slices.Sorted(maps.Keys(family)) {
					items = append(items, family[sk])
				}
			}
			items = append(items, guards...)
			for k, v := range f.Counts {
				local[k] += v
			}
		}
		mu.Lock()
		for k, v := range local {
			counts[k] += v
		}
		mu.Unlock()
		return env.raw.putAll(ctx, table, items)
	})
	if err != nil {
		return err
	}
	byItem := map[string]map[storeformat.Count]int{}
	for k, v := range counts {
		if byItem[k.Item] == nil {
			byItem[k.Item] = map[storeformat.Count]int{}
		}
		byItem[k.Item][k] = v
	}
	for of, cs := range byItem {
		for shard := range storeformat.CountShards {
			part := map[string]int{}
			for k, v := range cs {
				if share := v/storeformat.CountShards + btoi(shard < v%storeformat.CountShards); share != 0 {
					part[k.Attr] = share
				}
			}
			if len(part) == 0 {
				continue
			}
			if _, err := env.raw.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
				TransactItems: []types.TransactWriteItem{{Update: counterUpdate(table, teamID, shard, of, part)}}}); err != nil {
				return fmt.Errorf("bench: count imported records: %w", err)
			}
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// putAll writes items with unconditional batch writes, 25 a call, until none is left unprocessed.
func (r *rawClient) putAll(ctx context.Context, table string, items []item) error {
	for len(items) > 0 {
		k := min(len(items), 25)
		reqs := make([]types.WriteRequest, k)
		for i, it := range items[:k] {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		for len(reqs) > 0 {
			out, err := r.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			if err != nil {
				return fmt.Errorf("bench: import: %w", err)
			}
			reqs = out.UnprocessedItems[table]
		}
		items = items[k:]
	}
	return nil
}

// historyClients returns n valid clients of a team (patio.NewClient): one in five a company (a
// CNPJ), the others individuals (a CPF), created evenly over historySpan up to end with the status
// status returns; every other one has an email.
func historyClients(teamID string, n int, end time.Time, status func() string) []patio.Client {
	step := historySpan / time.Duration(n)
	out := make([]patio.Client, n)
	for i := range out {
		created := end.Add(-step * time.Duration(n-i))
		in := patio.ClientInput{Type: patio.Some(patio.ClientIndividual), Name: patio.Some(fmt.Sprintf("Cliente Bench %05d", i)),
			CPF: patio.Some(cpf(i))}
		if i%5 == 0 {
			in = patio.ClientInput{Type: patio.Some(patio.ClientCompany), Name: patio.Some(fmt.Sprintf("Revenda Bench %05d Ltda", i)),
				CNPJ: patio.Some(cnpj(i))}
		}
		if i%2 == 0 {
			in.Email = patio.Some(fmt.Sprintf("cliente%d@example.com", i))
		}
		c, err := patio.NewClient(teamID, uuidAt(created), created, in)
		if err != nil {
			panic(fmt.Sprintf("bench: history client %d: %v", i, err))
		}
		c.Status = status()
		out[i] = c
	}
	return out
}

// historyDeals returns n deals of a team spread over clientIDs, created evenly over historySpan
// up to end: as a dealership's pipeline leaves them, 20 % open, 40 % won, 30 % lost, 10 % archived.
func historyDeals(teamID string, n int, end time.Time, clientIDs []string) []patio.Deal {
	step := historySpan / time.Duration(n)
	statuses := []string{patio.DealOpen, patio.DealOpen, patio.DealWon, patio.DealWon, patio.DealWon, patio.DealWon,
		patio.DealLost, patio.DealLost, patio.DealLost, patio.DealArchived}
	out := make([]patio.Deal, n)
	for i := range out {
		created := end.Add(-step * time.Duration(n-i))
		m := benchModels[i%len(benchModels)]
		w, err := patio.NewDeal(context.Background(), teamID, uuidAt(created), created, patio.DealInput{
			Title: patio.Some(fmt.Sprintf("Venda %s %s", m.brand, m.model)), ClientID: patio.Some(clientIDs[i%len(clientIDs)]),
			Value: patio.Some(money.Cents(1_500_000 + (i*7_919_993)%40_000_000)), Phase: patio.Some(patio.DealPhases[i%len(patio.DealPhases)])}, nil)
		if err != nil {
			panic(fmt.Sprintf("bench: history deal %d: %v", i, err))
		}
		d := w.Record
		d.Status = statuses[i%len(statuses)]
		if d.Status == patio.DealWon || d.Status == patio.DealLost {
			ts := patio.NewTimestamp(created.Add(30 * 24 * time.Hour))
			d.ClosedAt, d.UpdatedAt = &ts, ts
		}
		if d.Status == patio.DealLost {
			d.LostReason = ptrTo("preco")
		}
		out[i] = d
	}
	return out
}
