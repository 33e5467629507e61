// Package app is the composition root: it reads the configuration once (Config) and builds from it
// the API handler, the authorizer and the webhook workers, the same way for every Lambda function
// and for the local programs. It holds wiring only; the adapters own their plumbing.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go/logging"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
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

// SDKHTTPClient is the HTTP client of every AWS SDK call. The SDK keeps 10 idle connections per
// host by default; a process serving many requests at once (the local stack, a warm Lambda with
// concurrent SDK calls) would keep opening new ones. Each attempt of an SDK call has its own
// timeout (the store's retryer bounds the attempts), so a hung database fails calls instead of
// holding them until the request's deadline.
func SDKHTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTimeout(sdkAttemptTimeout).WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = 64
	})
}

// LambdaAWS returns the AWS configuration of a Lambda execution environment from the variables
// Lambda sets there, read through lookup (os.LookupEnv): AWS_REGION, and the function's role's
// credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; with the SDK's
// endpoint variables (AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, unless
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true) and SDKHTTPClient and SDKLogger. It is how every
// Lambda function reads its configuration: what the SDK's loader (shared/app/awsconfig) would
// find there, without linking the loader, whose shared-file profiles, SSO, STS and instance
// metadata clients a function never uses. It fails when the region or the credentials are
// missing.
func LambdaAWS(lookup func(string) (string, bool)) (aws.Config, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	region, key, secret := get("AWS_REGION"), get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY")
	if region == "" || key == "" || secret == "" {
		return aws.Config{}, errors.New("app: AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set, as Lambda sets them")
	}
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: get("AWS_SESSION_TOKEN"),
		Source: "LambdaEnvironment"}
	cfg := aws.Config{
		Region: region,
		Credentials: aws.NewCredentialsCache(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		})),
		HTTPClient: SDKHTTPClient(),
		Logger:     SDKLogger(),
	}
	if ignore, _ := strconv.ParseBool(get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")); !ignore {
		if v := get("AWS_ENDPOINT_URL"); v != "" {
			cfg.BaseEndpoint = aws.String(v)
		}
		cfg.ConfigSources = []any{envEndpoints(lookup)}
	}
	return cfg, nil
}

// envEndpoints answers the SDK clients' lookup of a service's own endpoint variable,
// AWS_ENDPOINT_URL_<service id, upper-cased, spaces as underscores>, as the SDK's loader does
// (config.EnvConfig).
type envEndpoints func(string) (string, bool)

// GetServiceBaseEndpoint implements the SDK's configuration source of service endpoints.
func (e envEndpoints) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	v, _ := e("AWS_ENDPOINT_URL_" + strings.ReplaceAll(strings.ToUpper(sdkID), " ", "_"))
	return v, v != "", nil
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
func api(cfg aws.Config, c Config, logger *slog.Logger, teamHint func(*http.Request) patio.Team, resources ...Resource) (http.Handler, error) {
	fns, err := apiFunctions(resources)
	if err != nil {
		return nil, err
	}
	if err := c.Require(fns...); err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	o := httpapi.Options{Keys: accountdb.NewAccounts(store.DB()), Limiter: accountdb.NewCounters(store.DB()), Logger: logger, TeamHint: teamHint}
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

// SDKLogger is the logger of every AWS SDK client: it sends the SDK's own log lines to the
// default slog logger as JSON.
func SDKLogger() logging.Logger { return sdkLogger{log: slog.Default()} }

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
