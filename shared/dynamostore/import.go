package dynamostore

import (
	"context"
	"fmt"

	"github.com/patio-dev/patio/shared/patio"
)

// ImportVehicles bulk-loads vehicles of one team in the store's own item format (rows, order items,
// plate guards, counts), with batch writes rather than one transaction per vehicle: for seeding
// benchmarks and restoring data, many times faster than creating them one by one. Each status's
// count is spread over all the counter shards, as a team's concurrent writes leave it, so that
// what reads the counts (every list) reads what it reads in production. It checks nothing and is
// not atomic: the vehicles must be new, valid (patio.NewVehicle), of the team, with distinct
// plates, and nothing else may write them while it runs.
func (s *Store) ImportVehicles(ctx context.Context, teamID string, vs []patio.Vehicle) error {
	r := records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s, &vehicleKind}
	t := r.table()
	counts := map[string]int{}
	items := make([]any, 0, 2*len(vs))
	for _, v := range vs {
		if v.TeamID != teamID {
			return fmt.Errorf("dynamostore: import vehicle %s of team %s into team %s", v.ID, v.TeamID, teamID)
		}
		v = r.k.withRevision(v, max(v.Revision, 1))
		row := r.k.encode(v)
		items = append(items, row, r.k.orderItem(row, r.orderKey(v.Status, v.ID)))
		for _, g := range r.k.guards(v) {
			items = append(items, guardRow{PK: teamID, SK: g.sk, Owner: v.ID})
		}
		counts[v.Status]++
	}
	for len(items) > 0 {
		n := min(len(items), 25)
		if _, err := t.Batch("pk", "sk").Write().Put(items[:n]...).Run(ctx); err != nil {
			return wrap(err, "import vehicles of team", teamID)
		}
		items = items[n:]
	}
	for shard := range countShards {
		if len(counts) == 0 {
			break
		}
		u := t.Update("pk", teamID).Range("sk", countKey(shard))
		for status, n := range counts {
			u = u.Add(status, n/countShards+btoi(shard < n%countShards))
		}
		if err := u.Run(ctx); err != nil {
			return wrap(err, "count imported vehicles of team", teamID)
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
