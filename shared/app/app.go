// Package app is the composition root: it reads the configuration once (Config) and builds from it
// the API handler, the authorizer and the webhook workers, the same way for every Lambda function
// and for the local programs. It holds wiring only; the adapters own their plumbing.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

// Resource names one API resource a handler serves.
type Resource string

// The API resources.
const (
	Vehicles Resource = "vehicles"
	Clients  Resource = "clients"
	Deals    Resource = "deals"
)

// sdkAttemptTimeout bounds one HTTP attempt of an AWS SDK call.
const sdkAttemptTimeout = 3 * time.Second

// LoadAWS loads the AWS configuration from the standard environment (region, credentials and
// AWS_ENDPOINT_URL_* overrides for local engines).
func LoadAWS(ctx context.Context) (aws.Config, error) {
	// The SDK keeps 10 idle connections per host by default; a process serving many requests at
	// once (the local stack, a warm Lambda with concurrent SDK calls) would keep opening new ones.
	// Each attempt of an SDK call has its own timeout (the store's retryer bounds the attempts), so
	// a hung database fails calls instead of holding them until the request's deadline.
	httpClient := awshttp.NewBuildableClient().WithTimeout(sdkAttemptTimeout).WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = 64
	})
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(sdkLogger{log: slog.Default()}), config.WithHTTPClient(httpClient))
	if err != nil {
		return aws.Config{}, fmt.Errorf("app: load AWS configuration: %w", err)
	}
	return cfg, nil
}

// apiFunction is the Lambda function serving each API resource.
var apiFunction = map[Resource]Function{Vehicles: VehiclesFunction, Clients: ClientsFunction, Deals: DealsFunction}

// apiFunctions returns the functions serving resources; an unknown resource is an error.
func apiFunctions(resources []Resource) ([]Function, error) {
	fns := make([]Function, len(resources))
	for i, r := range resources {
		fn, ok := apiFunction[r]
		if !ok {
			return nil, fmt.Errorf("app: unknown resource %q", r)
		}
		fns[i] = fn
	}
	return fns, nil
}

// API returns the API handler serving the given resources on the configured tables. Routes of other
// resources answer 404. It fails on an unknown resource, and when c lacks a variable the resources'
// functions need (Config.Require).
func API(cfg aws.Config, c Config, logger *slog.Logger, resources ...Resource) (http.Handler, error) {
	return api(cfg, c, logger, nil, resources...)
}

// api is API with the edge's team hint (httpapi.Options.TeamHint) of the Lambda functions.
func api(cfg aws.Config, c Config, logger *slog.Logger, teamHint func(*http.Request) string, resources ...Resource) (http.Handler, error) {
	fns, err := apiFunctions(resources)
	if err != nil {
		return nil, err
	}
	if err := c.Require(fns...); err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	o := httpapi.Options{Keys: store, Limiter: store, Logger: logger, TeamHint: teamHint}
	for _, r := range resources {
		switch r {
		case Vehicles:
			o.Vehicles = patio.NewVehicles(store.Vehicles()).WithClaims(store)
		case Clients:
			o.Clients = patio.NewClients(store.Clients()).WithClaims(store)
		case Deals:
			o.Deals = patio.NewDeals(store.Deals(), store.Vehicles()).WithClaims(store)
		}
	}
	return httpapi.New(o), nil
}

// sdkLogger sends the AWS SDK's own log lines to slog as JSON.
type sdkLogger struct{ log *slog.Logger }

// Logf implements the SDK's logging.Logger. It drops one known false alarm: the DynamoDB client
// validates a CRC32 of error responses that carry no X-Amz-Crc32 header (aws-sdk-go-v2 issue 3545;
// DynamoDB Local and real DynamoDB error responses), which says nothing about our requests.
func (l sdkLogger) Logf(classification logging.Classification, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "failed to close HTTP response body") {
		return
	}
	level := slog.LevelInfo
	if classification == logging.Warn {
		level = slog.LevelWarn
	}
	l.log.Log(context.Background(), level, msg, slog.String("source", "aws-sdk"))
}
