package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// BenchmarkLimiter measures what the exact rate limiter adds to a request: the same router built
// with and without it, in the same run, serving GET /api/v1/vehicles/{id} over real HTTP on
// DynamoDB Local. The difference of the two ns/op is the limiter's cost (two conditional UpdateItem
// calls on the team's minute and day counters).
func BenchmarkLimiter(b *testing.B) {
	testenv.Tables(b)
	cfg := testenv.AWSConfig(b)
	store := dynamostore.New(cfg, envConfig(b).Tables)
	ctx := context.Background()
	team, err := patio.NewTeam("Bench", "ops@example.com", "autoshopping")
	if err != nil {
		b.Fatal(err)
	}
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team); err != nil {
		b.Fatal(err)
	}
	key, secret, _ := patio.NewAPIKey(team.ID, "bench", patio.Scopes, patio.TestKeyPrefix)
	if err := accountdb.NewAccounts(store.DB()).CreateKey(ctx, key); err != nil {
		b.Fatal(err)
	}
	vehicles := patio.NewVehicles(store.Vehicles())
	v, err := vehicles.Create(ctx, team.ID, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"),
		Price: patio.Some(money.Cents(3_000_000))})
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for _, tt := range []struct {
		name    string
		limiter patio.RateCounter
	}{
		{name: "without-limiter", limiter: nil},
		{name: "with-limiter", limiter: accountdb.NewCounters(store.DB())},
	} {
		b.Run(tt.name, func(b *testing.B) {
			srv := httptest.NewServer(httpapi.New(httpapi.Options{Keys: accountdb.NewAccounts(store.DB()), Limiter: tt.limiter, Vehicles: vehicles, Logger: logger}))
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/api/v1/vehicles/"+v.ID, nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			for b.Loop() {
				res, err := srv.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
		})
	}
}
