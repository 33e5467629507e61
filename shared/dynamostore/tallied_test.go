package dynamostore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/patio-dev/patio/dev/storeseed"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// examinedStore returns a store on the test tables whose client adds up the items its queries
// examine (their ScannedCount).
func examinedStore(t *testing.T) (*dynamostore.Store, *atomic.Int64) {
	t.Helper()
	var examined atomic.Int64
	cfg := testenv.AWSConfig(t).Copy()
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("examined",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if q, ok := out.Result.(*dynamodb.QueryOutput); ok {
					examined.Add(int64(q.ScannedCount))
				}
				return out, md, err
			}), middleware.After)
	})
	names := testenv.Tables(t)
	return dynamostore.New(cfg, dynamostore.Tables{
		Vehicles: names["VehiclesTable"], Clients: names["ClientsTable"], Deals: names["DealsTable"],
		Accounts: names["AccountsTable"], Activities: names["ActivitiesTable"], Financial: names["FinancialTable"]}), &examined
}

// A price range and a one-word q count their total from the indexer's counts: exact, and read
// with fewer items than they match (a count over the matches would examine each of them).
func TestTotalsOfRangeAndWordReadFewItems(t *testing.T) {
	s, examined := examinedStore(t)
	ctx, team := context.Background(), newTeam()
	var vs []patio.Vehicle
	for i := range 400 {
		model := "Argo"
		if i%2 == 0 {
			model = "Corolla"
		}
		vs = append(vs, newVehicle(t, team, patio.VehicleInput{Model: patio.Some(model), Plate: patio.Some(fmt.Sprintf("TAL%04d", i)),
			Price: patio.Some(money.Cents(2_000_000 + i*10_000))}))
	}
	if err := storeseed.Seed(ctx, s.DB(), vs); err != nil {
		t.Fatal(err)
	}
	caughtUp(t) // the seeded rows' stream: the indexer finds them counted
	svc := patio.NewVehicles(s.Vehicles())
	lo, hi := money.Cents(2_500_000), money.Cents(5_000_000) // 251 vehicles
	for _, tc := range []struct {
		name  string
		q     patio.VehicleQuery
		match func(patio.Vehicle) bool
	}{
		{"price range by price", patio.VehicleQuery{PriceMin: &lo, PriceMax: &hi, ListQuery: patio.ListQuery{Sort: "price"}},
			func(v patio.Vehicle) bool { return v.Price >= lo && v.Price <= hi }},
		{"price range", patio.VehicleQuery{PriceMin: &lo, PriceMax: &hi},
			func(v patio.Vehicle) bool { return v.Price >= lo && v.Price <= hi }},
		{"q=corolla", patio.VehicleQuery{Q: ptr("corolla")}, func(v patio.Vehicle) bool { return v.Model == "Corolla" }},
		{"q=coro", patio.VehicleQuery{Q: ptr("coro")}, func(v patio.Vehicle) bool { return v.Model == "Corolla" }},
	} {
		q, err := tc.q.Check()
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, v := range vs {
			if tc.match(v) {
				want++
			}
		}
		examined.Store(0)
		got, err := svc.List(ctx, team, q)
		if err != nil || got.Total != want || len(got.Items) != patio.DefaultLimit {
			t.Errorf("%s: total %d, %d items, %v; want %d, a full page", tc.name, got.Total, len(got.Items), err, want)
		}
		for _, v := range got.Items {
			if !tc.match(v) {
				t.Errorf("%s: %s (%s, %s) does not match", tc.name, v.ID, v.Model, v.Price)
			}
		}
		if n := examined.Load(); n >= int64(want) {
			t.Errorf("%s: examined %d items; want fewer than its %d matches", tc.name, n, want)
		}
	}
}
