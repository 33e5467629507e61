package httpapi_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
)

// faultyAPI serves the API with its DynamoDB calls going through a fault injector with spec in
// force, and returns a client with a key of a new team (made on the healthy engine).
func faultyAPI(t *testing.T, spec string) *apitest.Client {
	t.Helper()
	s := newStack(t)
	_, healthy := s.team(t)
	parsed, err := faults.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	inj, err := faults.Start(map[string]string{"dynamodb": os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")}, parsed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inj.Close() })
	cfg := testenv.AWSConfig(t).Copy()
	cfg.BaseEndpoint = aws.String(inj.URL("dynamodb"))
	cfg.ConfigSources = nil // else AWS_ENDPOINT_URL_DYNAMODB, which names the engine itself, wins
	h, err := app.API(cfg, envConfig(t), slog.New(slog.NewJSONHandler(io.Discard, nil)), app.Vehicles, app.Clients, app.Deals)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &apitest.Client{T: t, BaseURL: srv.URL, Key: healthy.Key}
}

// While DynamoDB throttles (ProvisionedThroughputExceededException, ThrottlingException) or fails
// (500 InternalServerError) past the SDK's retries, the API answers 503 SERVICE_UNAVAILABLE with
// Retry-After, never a 500 that reads like its own failure.
func TestDynamoDBFaultsAreUnavailable(t *testing.T) {
	for _, spec := range []string{
		"dynamodb:throttle=100%",
		"dynamodb:throttling=100%",
		"dynamodb/TransactWriteItems:error500=100%",
	} {
		t.Run(spec, func(t *testing.T) {
			c := faultyAPI(t, spec)
			for _, req := range [][2]string{{"POST", "/api/v1/vehicles"}, {"GET", "/api/v1/vehicles"}} {
				if spec == "dynamodb/TransactWriteItems:error500=100%" && req[0] == "GET" {
					continue // a read makes no transaction
				}
				res := c.Do(req[0], req[1], newVehicle(nil))
				if res.Status != 503 || res.ErrorCode() != "SERVICE_UNAVAILABLE" || res.Header.Get("Retry-After") != "2" {
					t.Errorf("%s %s with %s = %d %s (Retry-After %q); want 503 SERVICE_UNAVAILABLE, Retry-After 2",
						req[0], req[1], spec, res.Status, res.Body, res.Header.Get("Retry-After"))
				}
			}
		})
	}
}
