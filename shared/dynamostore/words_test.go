package dynamostore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestSearchSeveralTerms: q with several terms finds exactly the records with a word for each,
// counted exactly, whether one term is rare and another common (the rare one decides), both are
// common, or one matches nothing; in creation order and by name.
func TestSearchSeveralTerms(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	const n = 70 // more than the race's first pages, so that the common terms take several rounds
	var names []string
	for i := range n {
		name := fmt.Sprintf("Cliente Bench %04d", i)
		if i%10 == 3 {
			name = fmt.Sprintf("Bench Motors %04d", i)
		}
		names = append(names, name)
		createClient(t, s, team, individual(name, cpfOf(t, fmt.Sprintf("%09d", 100000+i))))
	}
	caughtUp(t)
	for _, tc := range []struct {
		q     string
		total int
	}{
		{"bench 0042", 1},
		{"0042 bench", 1},
		{"cliente bench", n - 7},
		{"bench cliente 001", 9}, // 0010 to 0019 but the Motors 0013
		{"motors bench", 7},
		{"bench zzz", 0},
		{"cli 0013 bench", 0}, // 0013 is a Motors client
	} {
		for _, sort := range []string{"", "name"} {
			q, err := patio.ClientQuery{Q: ptr(tc.q), ListQuery: patio.ListQuery{Sort: sort, Limit: patio.Some(100)}}.Check()
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Clients().List(ctx, team, q)
			if err != nil {
				t.Fatalf("q=%s: %v", tc.q, err)
			}
			if got.Total != tc.total || len(got.Items) != tc.total {
				t.Errorf("q=%q sort=%q: total %d, %d items; want %d", tc.q, sort, got.Total, len(got.Items), tc.total)
			}
			for _, c := range got.Items {
				if !slices.Contains(names, c.Name) {
					t.Errorf("q=%q: %q is not a client of the team", tc.q, c.Name)
				}
			}
		}
	}
}

// TestIndexFollowsEveryChange: the indexer's word items, open facets' copies and their counts follow
// a record through a new plate, a new brand and a status change made before it runs (one batch,
// collapsed), and handing it the team's stream records again, from the first (the stream's
// retries), leaves the search, the brand's list and its total as they were: counted once.
func TestIndexFollowsEveryChange(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	v := createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"),
		Plate: patio.Some("ABC1D23"), Price: patio.Some(money.Cents(100))})
	search := func(q string, status ...string) int {
		t.Helper()
		vq, err := patio.VehicleQuery{Q: ptr(q), ListQuery: patio.ListQuery{Status: status}}.Check()
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.List(ctx, team, vq)
		if err != nil {
			t.Fatalf("q=%s: %v", q, err)
		}
		if len(got.Items) != got.Total {
			t.Errorf("q=%s: %d items, total %d", q, len(got.Items), got.Total)
		}
		return got.Total
	}
	caughtUp(t)
	if n := search("abc1"); n != 1 {
		t.Fatalf("q=abc1 after the create = %d; want the Uno by its plate", n)
	}
	if _, err := svc.Update(ctx, team, v.ID, patio.VehicleInput{Plate: patio.Some("XYZ9F87"), Brand: patio.Some("Toyota")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, team, v.ID, patio.VehicleInput{Status: patio.Some(string(patio.VehicleArchived))}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, tc := range []struct {
			q      string
			status []string
			want   int
		}{
			{"abc1", nil, 0}, {"abc1", []string{string(patio.VehicleArchived)}, 0}, // the old plate
			{"xyz9", nil, 0}, // archived vehicles are not listed by default
			{"xyz9", []string{string(patio.VehicleArchived)}, 1}, {"uno", []string{string(patio.VehicleArchived)}, 1},
			{"toyota", []string{string(patio.VehicleArchived)}, 1}, // the new brand (the title keeps its first words)
			{"uno", []string{string(patio.VehicleActive)}, 0},
		} {
			if n := search(tc.q, tc.status...); n != tc.want {
				t.Errorf("%s: q=%s status=%v = %d; want %d", when, tc.q, tc.status, n, tc.want)
			}
		}
		for brand, want := range map[string]int{"fiat": 0, "toyota": 1} {
			vq, err := patio.VehicleQuery{Brand: ptr(brand), ListQuery: patio.ListQuery{Status: []string{string(patio.VehicleArchived)}}}.Check()
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.List(ctx, team, vq)
			if err != nil || got.Total != want || len(got.Items) != want {
				t.Errorf("%s: brand=%s archived = total %d, %d items, %v; want %d", when, brand, got.Total, len(got.Items), err, want)
			}
		}
	}
	caughtUp(t)
	check("after the rename and the archiving")

	// The team's records handed over again, from the first: every write is made again.
	names := testenv.Tables(t)
	again := localaws.NewStreamReader(testenv.AWSConfig(t), names["VehiclesTable"])
	var replayed int
	err := again.CatchUp(ctx, func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var ours []events.DynamoDBEventRecord
		for _, rec := range ev.Records {
			if rec.Change.Keys["pk"].String() == team {
				ours = append(ours, rec)
			}
		}
		replayed += len(ours)
		return events.DynamoDBEventResponse{}, dynamostore.IndexerOf(s).Index(ctx, ours)
	})
	if err != nil || replayed == 0 {
		t.Fatalf("replay: %d records, %v", replayed, err)
	}
	check("after the team's records were handed over again")
}

// TestRebuildIndex: after the indexer's items were lost, left behind or miscounted (its batches
// failed past their retries), the operators' rebuild reports them, --check writes nothing, and a
// run puts the missing back, deletes the stale and corrects the counts, so q and the brand's list
// find the record again, by its words and brand only, counted once.
func TestRebuildIndex(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	v := createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100))})
	caughtUp(t)
	list := func(q patio.VehicleQuery) (total, items int) {
		t.Helper()
		q, err := q.Check()
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.List(ctx, team, q)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		return got.Total, len(got.Items)
	}
	state := func() [4]int {
		uno, _ := list(patio.VehicleQuery{Q: ptr("uno")})
		zzz, _ := list(patio.VehicleQuery{Q: ptr("zzz")})
		fiat, fiats := list(patio.VehicleQuery{Brand: ptr("fiat")})
		return [4]int{uno, zzz, fiat, fiats}
	}
	table := testenv.Tables(t)["VehiclesTable"]
	db := dynamo.New(testenv.AWSConfig(t)).Table(table)
	words := storeformat.Vehicles.WordPrefix(string(patio.VehicleActive))
	if err := db.Delete("pk", team).Range("sk", words+"uno#"+v.ID).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Put(map[string]any{"pk": team, "sk": words + "zzz#" + v.ID}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	// The words' counts, as the indexer would have moved them for the wrong words: one "uno" less
	// (shards add up, so any shard), one "zzz".
	for word, n := range map[string]int{"uno": -1, "zzz": 1} {
		if err := db.Update("pk", team).Range("sk", storeformat.CounterKey(storeformat.WordCountKey(word), 0)).
			Add("'"+string(patio.VehicleActive)+"'", n).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	fiat := storeformat.FacetKey("brand", "fiat")
	if err := db.Delete("pk", team).Range("sk", storeformat.Vehicles.FacetPrefix(fiat, string(patio.VehicleActive))+v.ID).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Update("pk", team).Range("sk", storeformat.CounterKey(fiat, 0)).Add("'"+string(patio.VehicleActive)+"'", 5).Run(ctx); err != nil {
		t.Fatal(err)
	}
	damaged := [4]int{0, 1, 6, 0}
	if got := state(); got != damaged {
		t.Fatalf("the damage shows as q=uno, q=zzz, brand=fiat total and items %v; want %v", got, damaged)
	}
	checked, err := dynamostore.IndexerOf(s).RebuildIndex(ctx, true)
	if err != nil || len(checked) != 3 || checked[0].Table != table || checked[0].Missing < 2 || checked[0].Stale < 1 || checked[0].Counts < 1 {
		t.Fatalf("RebuildIndex(check) = %+v, %v; want the vehicles' missing and stale items and a wrong count reported", checked, err)
	}
	if got := state(); got != damaged {
		t.Errorf("--check wrote: %v; want %v", got, damaged)
	}
	if _, err := dynamostore.IndexerOf(s).RebuildIndex(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got, want := state(), [4]int{1, 0, 1, 1}; got != want {
		t.Errorf("after the rebuild: q=uno, q=zzz, brand=fiat total and items %v; want %v", got, want)
	}
}

// TestUpgradeCountsWordsOnce: a vehicle as the previous release left it (its row without
// `counted`, its words not in the word counts, its mark of the first format holding its revision,
// no stream mark of its team)
// gets its words counted by the backfill's rewrite, which keeps its revision, and once only: its
// stream handed over again counts nothing twice.
func TestUpgradeCountsWordsOnce(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	v := createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Pulse"), Price: patio.Some(money.Cents(9_000_000))})
	caughtUp(t)
	table := testenv.Tables(t)["VehiclesTable"]
	db := dynamo.New(testenv.AWSConfig(t)).Table(table)
	pulses := func() int {
		t.Helper()
		var items []dynamo.Item
		err := db.Get("pk", team).Range("sk", dynamo.BeginsWith, storeformat.FacetCountPrefix+storeformat.WordCountKey("pulse")+"#").
			Consistent(true).All(ctx, &items)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, it := range items {
			n += storeformat.IntAttr(it, string(patio.VehicleActive))
		}
		return n
	}
	if n := pulses(); n != 1 {
		t.Fatalf("pulse counted %d times after its creation; want 1", n)
	}
	// The previous release's state: no `counted` on the row (the indexer's move of that change is
	// refused by the first-format mark, written after it), the word and bucket counts without it.
	var row dynamo.Item
	if err := db.Get("pk", team).Range("sk", dynamo.Equal, storeformat.Vehicles.RowKey(v.ID)).Consistent(true).One(ctx, &row); err != nil {
		t.Fatal(err)
	}
	_, later := storeformat.Vehicles.Split(storeformat.Vehicles.Family(row))
	for c, n := range later.Counts {
		if storeformat.IsTally(c.Item) {
			if err := db.Update("pk", team).Range("sk", storeformat.CounterKey(c.Item, 0)).Add("'"+c.Attr+"'", -n).Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Put(map[string]any{"pk": team, "sk": storeformat.Vehicles.MarkKey(v.ID), "rev": v.Revision}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete("pk", team).Range("sk", storeformat.Vehicles.StreamMarkKey()).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Update("pk", team).Range("sk", storeformat.Vehicles.RowKey(v.ID)).Remove("'" + storeformat.CountedAttr + "'").Run(ctx); err != nil {
		t.Fatal(err)
	}
	caughtUp(t)
	if n := pulses(); n != 0 {
		t.Fatalf("pulse counted %d times as the previous release left it; want 0", n)
	}
	if _, err := s.Backfill(ctx, false); err != nil {
		t.Fatal(err)
	}
	caughtUp(t)
	if n := pulses(); n != 1 {
		t.Errorf("pulse counted %d times after the backfill; want 1", n)
	}
	names := testenv.Tables(t)
	again := localaws.NewStreamReader(testenv.AWSConfig(t), names["VehiclesTable"])
	err := again.CatchUp(ctx, func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var ours []events.DynamoDBEventRecord
		for _, rec := range ev.Records {
			if rec.Change.Keys["pk"].String() == team {
				ours = append(ours, rec)
			}
		}
		return events.DynamoDBEventResponse{}, dynamostore.IndexerOf(s).Index(ctx, ours)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := pulses(); n != 1 {
		t.Errorf("pulse counted %d times after the team's records were handed over again; want 1", n)
	}
	q, err := patio.VehicleQuery{Q: ptr("pulse")}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Vehicles().List(ctx, team, q); err != nil || got.Total != 1 || len(got.Items) != 1 {
		t.Errorf("q=pulse = total %d, %d items, %v; want the vehicle", got.Total, len(got.Items), err)
	}
}

// TestIndexCountsOnceWhateverTheBatches: a team's changes handed to the indexer in batches that
// overlap, are cut anywhere and handed over again (as Lambda retries a batch from a failed record,
// with more records after it, or bisects it) are counted once each: the indexer's counts end as
// the records' rows say, and so do the brand's list and its total.
func TestIndexCountsOnceWhateverTheBatches(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	brands := []string{"Fiat", "Toyota", "Honda"}
	var ids []string
	for i := range 30 {
		v := createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some(brands[i%3]), Model: patio.Some(fmt.Sprintf("Modelo%d", i%4)),
			Plate: patio.Some(fmt.Sprintf("BAT%04d", i)), Price: patio.Some(money.Cents(int64(1_000_000 + i*70_000)))})
		ids = append(ids, v.ID)
	}
	for i, id := range ids[:12] {
		in := patio.VehicleInput{Brand: patio.Some(brands[(i+1)%3]), Price: patio.Some(money.Cents(int64(3_000_000 + i*1_000)))}
		if i%4 == 0 {
			in.Status = patio.Some(string(patio.VehicleArchived))
		}
		if _, err := svc.Update(ctx, team, id, in); err != nil {
			t.Fatal(err)
		}
	}
	names := testenv.Tables(t)
	var recs []events.DynamoDBEventRecord
	err := localaws.NewStreamReader(testenv.AWSConfig(t), names["VehiclesTable"]).CatchUp(ctx,
		func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, rec := range ev.Records {
				if rec.Change.Keys["pk"].String() == team {
					recs = append(recs, rec)
				}
			}
			return events.DynamoDBEventResponse{}, nil
		})
	if err != nil || len(recs) < 42 {
		t.Fatalf("the team's stream: %d records, %v", len(recs), err)
	}
	x := dynamostore.IndexerOf(s)
	// Windows as a stream's retries hand them over: from a failed record on, longer or shorter.
	n := len(recs)
	for _, w := range [][2]int{{0, n / 3}, {n / 4, n / 2}, {n / 4, n / 2}, {n / 5, 2 * n / 3}, {n / 2, n}, {0, n}, {n - 1, n}} {
		if err := x.Index(ctx, recs[w[0]:w[1]]); err != nil {
			t.Fatalf("Index(records %d to %d) = %v", w[0], w[1], err)
		}
	}
	if d := dynamostore.CountDrift(t, s, team); d != 0 {
		t.Errorf("%d of the indexer's counts differ from the records'", d)
	}
	for _, brand := range brands {
		vq, err := patio.VehicleQuery{Brand: ptr(strings.ToLower(brand))}.Check()
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.List(ctx, team, vq)
		if err != nil || got.Total != len(got.Items) {
			t.Errorf("brand=%s: total %d, %d items, %v; want as many", brand, got.Total, len(got.Items), err)
		}
	}
}

// TestStreamChangeSaysWhenWritten: a change read from the stream says when its row was written, to
// the millisecond (what a webhook's creation is compared with), within the write's call.
func TestStreamChangeSaysWhenWritten(t *testing.T) {
	s := newStore(t)
	ctx, team := context.Background(), newTeam()
	before := time.Now().Truncate(time.Millisecond)
	createVehicle(t, s, team, patio.VehicleInput{})
	after := time.Now()
	var got []time.Time
	err := localaws.NewStreamReader(testenv.AWSConfig(t), testenv.Tables(t)["VehiclesTable"]).CatchUp(ctx,
		func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, rec := range ev.Records {
				if c, ok, err := dynamostore.StreamChange(rec); err == nil && ok && c.TeamID == team {
					got = append(got, c.Written)
				}
			}
			return events.DynamoDBEventResponse{}, nil
		})
	if err != nil || len(got) != 1 {
		t.Fatalf("the team's changes: %v, %v; want one", got, err)
	}
	if got[0].Before(before) || got[0].After(after) {
		t.Errorf("Written = %s; want between %s and %s", got[0], before, after)
	}
}

// TestRebuildIndexMendsPlateWords: a vehicle written before a plate was a word in both its
// spellings (its row and the copies its write's transaction keeps hold the old words, its word
// items and counts follow them) is not found by its plate's other spelling; the rebuild reports
// its row, --check writes nothing, and a run rewrites it as it is (same revision), after which the
// indexer follows: q finds the plate old or Mercosul, in the creation order and by price, and
// nothing is left to mend.
func TestRebuildIndexMendsPlateWords(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	v := createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"),
		Plate: patio.Some("xyz-9876"), Price: patio.Some(money.Cents(100))})
	caughtUp(t)
	find := func(q, sort string) int {
		t.Helper()
		vq, err := patio.VehicleQuery{Q: ptr(q), ListQuery: patio.ListQuery{Sort: sort}}.Check()
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.List(ctx, team, vq)
		if err != nil {
			t.Fatalf("q=%s: %v", q, err)
		}
		if len(got.Items) != got.Total {
			t.Errorf("q=%s sort=%s: %d items, total %d", q, sort, len(got.Items), got.Total)
		}
		return got.Total
	}
	// The vehicle as the previous release wrote it: its row's and order item's words without the
	// Mercosul spelling; the indexer follows the row, dropping that word's item and count.
	db := dynamo.New(testenv.AWSConfig(t)).Table(testenv.Tables(t)["VehiclesTable"])
	old := storeformat.JoinWords([]string{"fiat", "uno", "xyz9876"})
	for _, sk := range []string{storeformat.Vehicles.RowKey(v.ID), storeformat.Vehicles.OrderKey(string(patio.VehicleActive), v.ID)} {
		if err := db.Update("pk", team).Range("sk", sk).Set(storeformat.WordsAttr, old).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp(t)
	if n := find("xyz9i76", ""); n != 0 {
		t.Fatalf("q=xyz9i76 on the previous release's row = %d; want 0 (the damage to mend)", n)
	}
	checked, err := dynamostore.IndexerOf(s).RebuildIndex(ctx, true)
	if err != nil || checked[0].Words != 1 || checked[0].Missing != 0 || checked[0].Counts != 0 {
		t.Fatalf("RebuildIndex(check) = %+v, %v; want the vehicle's row reported for its words alone", checked, err)
	}
	if n := find("xyz9i76", ""); n != 0 {
		t.Errorf("--check wrote: q=xyz9i76 = %d", n)
	}
	if _, err := dynamostore.IndexerOf(s).RebuildIndex(ctx, false); err != nil {
		t.Fatal(err)
	}
	caughtUp(t)
	for _, q := range []string{"xyz9i76", "XYZ-9I76", "xyz-9876", "xyz9876", "xyz9i"} {
		for _, sort := range []string{"", "price"} {
			if n := find(q, sort); n != 1 {
				t.Errorf("after the rebuild: q=%s sort=%s = %d; want the Uno", q, sort, n)
			}
		}
	}
	got, err := svc.Get(ctx, team, v.ID)
	if err != nil || got.Revision != v.Revision || got.UpdatedAt != v.UpdatedAt {
		t.Errorf("after the rebuild the Uno is revision %d updated %v, %v; want it as it was (%d, %v)", got.Revision, got.UpdatedAt, err, v.Revision, v.UpdatedAt)
	}
	again, err := dynamostore.IndexerOf(s).RebuildIndex(ctx, true)
	if err != nil || again[0].Words != 0 || again[0].Missing != 0 || again[0].Stale != 0 || again[0].Counts != 0 {
		t.Errorf("RebuildIndex(check) after the rebuild = %+v, %v; want nothing to mend", again, err)
	}
}
