package dynamostore

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// PutLegacy stores a vehicle the way the previous version did: index keys without the status, no
// order item, no count (for the backfill's tests).
func PutLegacy(t *testing.T, s *Store, v patio.Vehicle) {
	t.Helper()
	item, err := dynamo.MarshalItem(storeformat.ToVehicleRow(v))
	if err != nil {
		t.Fatal(err)
	}
	for name, val := range item {
		if strings.HasPrefix(name, "lsi_") {
			var key string
			if err := dynamo.Unmarshal(val, &key); err != nil {
				t.Fatal(err)
			}
			item[name], _ = dynamo.Marshal(strings.TrimPrefix(key, string(v.Status)+"#"))
		}
	}
	if err := s.db.Dynamo.Table(s.db.Tables.Vehicles).Put(item).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// PutCounted stores a vehicle the way the previous version did: its row without words or the
// mark of a complete family, its order item and its status's count, and no facet or word items.
func PutCounted(t *testing.T, s *Store, v patio.Vehicle) {
	t.Helper()
	r := s.Vehicles().(records[patio.Vehicle, vehicleRow, patio.VehicleQuery])
	row, err := r.rowItem(v)
	if err != nil {
		t.Fatal(err)
	}
	delete(row, storeformat.WordsAttr)
	delete(row, storeformat.IndexedAttr)
	ops := []storecore.Op{{Put: r.table().Put(row)}}
	ops = append(ops, lists.FamilyOps(r.table(), v.TeamID, storeformat.Family{}, migration.Family(r.k.Layout, row))...)
	if err := s.db.Run(context.Background(), ops); err != nil {
		t.Fatal(err)
	}
}

// VehicleCounts returns a team's maintained vehicle counts by status, and how many of its
// vehicles have their whole family.
func VehicleCounts(ctx context.Context, s *Store, teamID string) (map[string]int, int, error) {
	t, err := lists.Tallies(ctx, s.db.Dynamo.Table(s.db.Tables.Vehicles), teamID, true, nil)
	out := map[string]int{}
	for _, status := range patio.VehicleStatuses {
		if n := t.Status([]string{status}); n != 0 {
			out[status] = n
		}
	}
	return out, t[storeformat.Count{Attr: storeformat.IndexedAttr}], err
}

// PutPerStatusCount stores a vehicle counter item of the previous counter format: one item per
// status and shard, "n#<status>#<shard>", its count in "count" (for the backfill's tests).
func PutPerStatusCount(t *testing.T, s *Store, teamID, status string, shard, n int) {
	t.Helper()
	err := s.db.Dynamo.Table(s.db.Tables.Vehicles).Put(map[string]any{"pk": teamID, "sk": storeformat.CountPrefix + status + "#" + strconv.Itoa(shard),
		"count": n}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

// VehicleCounterKeys returns the sort keys of a team's vehicle counter items.
func VehicleCounterKeys(ctx context.Context, s *Store, teamID string) ([]string, error) {
	var items []dynamo.Item
	err := s.db.Dynamo.Table(s.db.Tables.Vehicles).Get("pk", teamID).Range("sk", dynamo.BeginsWith, storeformat.CountPrefix).
		Consistent(true).All(ctx, &items)
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = storecore.AttrString(it, "sk")
	}
	return keys, err
}

// IndexAlarmUnderDay files an activity's pending alarm the way by_alarm's first format did: under
// the alarm's UTC date rather than alarmSet (for the backfill's tests).
func IndexAlarmUnderDay(t *testing.T, s *Store, teamID, id string) {
	t.Helper()
	var row activityRow
	tbl := s.db.Dynamo.Table(s.db.Tables.Activities)
	if err := tbl.Get("pk", teamID).Range("sk", dynamo.Equal, storeformat.Activities.RowKey(id)).Consistent(true).One(context.Background(), &row); err != nil {
		t.Fatal(err)
	}
	if row.AlarmKey == "" {
		t.Fatalf("activity %s has no pending alarm", id)
	}
	if err := tbl.Update("pk", teamID).Range("sk", storeformat.Activities.RowKey(id)).Set("alarm_day", row.AlarmKey[:10]).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// ServeFewMatchesUpTo sets how many matches per range a list's count reads in full to cut its page
// from them, until the test ends (0: never).
func ServeFewMatchesUpTo(t *testing.T, n int) {
	was := lists.FewPerRange
	lists.FewPerRange = n
	t.Cleanup(func() { lists.FewPerRange = was })
}

// CountShards is the number of status shards a team's counts are spread over.
const CountShards = storeformat.CountShards

// PutUnsummed stores a deal the way the previous version did: its row and whole family, without
// the mark of its value in the sums, and its value in none of them.
func PutUnsummed(t *testing.T, s *Store, d patio.Deal) {
	t.Helper()
	r := s.Deals().(records[patio.Deal, dealRow, patio.DealQuery])
	row, err := r.rowItem(d)
	if err != nil {
		t.Fatal(err)
	}
	delete(row, storeformat.SummedAttr)
	ops := []storecore.Op{{Put: r.table().Put(row)}}
	ops = append(ops, lists.FamilyOps(r.table(), d.TeamID, storeformat.Family{}, r.k.Layout.Family(row))...)
	if err := s.db.Run(context.Background(), ops); err != nil {
		t.Fatal(err)
	}
}

// CountDrift returns how many of the indexer's counts of one team's vehicles (its open facets',
// words' and buckets', by status) differ from what its records' rows say: 0 once the indexer has
// counted every change once.
func CountDrift(t *testing.T, s *Store, teamID string) int {
	t.Helper()
	ctx, l := context.Background(), storeformat.Vehicles
	table := s.db.Dynamo.Table(s.db.Tables.Vehicles)
	var rows []dynamo.Item
	if err := table.Get("pk", teamID).Range("sk", dynamo.BeginsWith, l.RowPrefix()).Consistent(true).All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	want := lists.Tally{}
	for _, row := range rows {
		_, later := l.Split(l.Family(row))
		for c, n := range later.Counts {
			want.Add(c, n)
		}
	}
	var counters []dynamo.Item
	if err := table.Get("pk", teamID).Range("sk", dynamo.BeginsWith, storeformat.FacetCountPrefix).Consistent(true).All(ctx, &counters); err != nil {
		t.Fatal(err)
	}
	have := lists.Tally{}
	for _, item := range counters {
		counter := strings.TrimPrefix(storecore.AttrString(item, "sk"), storeformat.FacetCountPrefix)
		facet := counter[:max(strings.LastIndexByte(counter, '#'), 0)]
		for attr := range item {
			if attr != "pk" && attr != "sk" {
				have.Add(storeformat.Count{Item: facet, Attr: attr}, storeformat.IntAttr(item, attr))
			}
		}
	}
	return len(want.Minus(have))
}

// PutRowOnly writes v's row over the stored revision v.Revision-1 the way an update in place
// writes it, and none of its copies: what a process stopped between the two leaves.
func PutRowOnly(t *testing.T, s *Store, v patio.Vehicle) {
	t.Helper()
	r := s.Vehicles().(records[patio.Vehicle, vehicleRow, patio.VehicleQuery])
	row, err := r.rowItem(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.table().Put(row).If("'rev' = ?", revAttr(v.Revision-1)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
