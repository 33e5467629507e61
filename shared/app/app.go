// Package app is the composition root: it builds the API handler (and later the event workers) from
// the environment, the same way for every Lambda function and for the local stack.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

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

// LoadAWS loads the AWS configuration from the standard environment (region, credentials and
// AWS_ENDPOINT_URL_* overrides for local engines).
func LoadAWS(ctx context.Context) (aws.Config, error) {
	// The SDK keeps 10 idle connections per host by default; a process serving many requests at
	// once (the local stack, a warm Lambda with concurrent SDK calls) would keep opening new ones.
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = 64
	})
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(sdkLogger{log: slog.Default()}), config.WithHTTPClient(httpClient))
	if err != nil {
		return aws.Config{}, fmt.Errorf("app: load AWS configuration: %w", err)
	}
	return cfg, nil
}

// API returns the API handler serving the given resources, on the tables named by the environment
// (VEHICLES_TABLE, ...). Routes of other resources answer 404.
func API(cfg aws.Config, logger *slog.Logger, resources ...Resource) (http.Handler, error) {
	tables := dynamostore.TablesFromEnv()
	if tables.Accounts == "" {
		return nil, fmt.Errorf("app: ACCOUNTS_TABLE is not set")
	}
	store := dynamostore.New(cfg, tables)
	o := httpapi.Options{Keys: store, Limiter: store, Logger: logger}
	for _, r := range resources {
		switch r {
		case Vehicles:
			if tables.Vehicles == "" {
				return nil, fmt.Errorf("app: VEHICLES_TABLE is not set")
			}
			o.Vehicles = patio.NewVehicles(store.Vehicles())
		case Clients:
			if tables.Clients == "" {
				return nil, fmt.Errorf("app: CLIENTS_TABLE is not set")
			}
			o.Clients = patio.NewClients(store.Clients())
		case Deals:
			if tables.Deals == "" || tables.Vehicles == "" || tables.Clients == "" {
				return nil, fmt.Errorf("app: DEALS_TABLE, VEHICLES_TABLE and CLIENTS_TABLE must be set")
			}
			o.Deals = patio.NewDeals(store.Deals(), store.Vehicles())
		default:
			return nil, fmt.Errorf("app: unknown resource %q", r)
		}
	}
	return httpapi.New(o), nil
}

// Logger returns the JSON logger for local processes, at LOG_LEVEL (default INFO).
func Logger() *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(os.Getenv("LOG_LEVEL"))); err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
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
