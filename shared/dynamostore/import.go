package dynamostore

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"

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
	counts := tally{}
	var items []any
	for _, v := range vs {
		if v.TeamID != teamID {
			return fmt.Errorf("dynamostore: import vehicle %s of team %s into team %s", v.ID, v.TeamID, teamID)
		}
		row, err := r.rowItem(r.k.withRevision(v, max(v.Revision, 1)))
		if err != nil {
			return wrap(err, "import vehicles of team", teamID)
		}
		f := r.family(row, formatIndexed)
		items = append(items, row)
		for _, m := range []map[string]dynamo.Item{f.copies, f.words} {
			for _, it := range m {
				items = append(items, it)
			}
		}
		for _, g := range r.k.guards(v) {
			items = append(items, guardRow{PK: teamID, SK: g.sk, Owner: v.ID})
		}
		for k, n := range f.counts {
			counts.add(k, n)
		}
	}
	for len(items) > 0 {
		n := min(len(items), 25)
		if _, err := t.Batch("pk", "sk").Write().Put(items[:n]...).Run(ctx); err != nil {
			return wrap(err, "import vehicles of team", teamID)
		}
		items = items[n:]
	}
	// Each count is spread over the shards, as a team's concurrent writes leave it.
	for shard := range countShards {
		part := tally{}
		for k, n := range counts {
			if v := n/countShards + btoi(shard < n%countShards); v != 0 {
				part.add(k, v)
			}
		}
		for _, o := range s.countOpsIn(t, teamID, part, shard) {
			if err := o.upd.Run(ctx); err != nil {
				return wrap(err, "count imported vehicles of team", teamID)
			}
		}
	}
	return nil
}
