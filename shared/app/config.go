package app

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/webhook"
)

// Config is the configuration of every Lambda function and local program, read once at start by
// LoadConfig from the variables template.yaml sets (and, on the local stack and in tests, the
// local-only webhook knobs). Nothing else reads the environment.
type Config struct {
	// Tables are VEHICLES_TABLE, CLIENTS_TABLE, DEALS_TABLE, ACCOUNTS_TABLE, WEBHOOKS_TABLE,
	// DELIVERIES_TABLE, ACTIVITIES_TABLE, FINANCIAL_TABLE and AUDIT_TABLE.
	Tables dynamostore.Tables
	// PhotosBucket is the bucket of vehicles' photos (PHOTOS_BUCKET); without it the photo routes
	// are not served.
	PhotosBucket string
	// PhotosURL is where the photos' variants are public (PHOTOS_URL): the distribution's address
	// on AWS, the local stack's photo server locally.
	PhotosURL string
	// QueueURL is the webhook delivery queue (DELIVERY_QUEUE_URL).
	QueueURL string
	// AlertSender is the verified SES identity alerts and invitations come from
	// (ALERT_SENDER_EMAIL).
	AlertSender string
	// UserPoolID and UserPoolClientID are the console's Cognito user pool and its client
	// (COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID).
	UserPoolID, UserPoolClientID string
	// ConsoleURL is where people sign in to the console (CONSOLE_URL), for the links of invitations
	// the operators' tool sends; the console itself builds them from the request.
	ConsoleURL string
	// RetrySchedule is WEBHOOK_RETRY_SCHEDULE (six Go durations), webhook.DefaultSchedule by default.
	RetrySchedule webhook.Schedule
	// WebhookTimeout is WEBHOOK_TIMEOUT, how long a receiver has to answer (default 5s).
	WebhookTimeout time.Duration
	// MaxHop is WEBHOOK_MAX_HOP, the longest delay of one queue message (default and at most 15m).
	MaxHop time.Duration
	// SweepAfter is WEBHOOK_SWEEP_AFTER, how overdue a pending attempt must be before the sweep
	// queues it again (default 3m; tests compress it).
	SweepAfter time.Duration
	// AllowPrivateTargets is WEBHOOK_ALLOW_PRIVATE_TARGETS: local stack and tests only.
	AllowPrivateTargets bool
	// CAFile is WEBHOOK_CA_FILE, extra PEM roots for receivers: local stack and tests only.
	CAFile string
	// MetricsNamespace is METRICS_NAMESPACE, the CloudWatch namespace of the Lambda functions'
	// embedded metrics (package emf); empty, no metrics.
	MetricsNamespace string
	// XRayDaemon is AWS_XRAY_DAEMON_ADDRESS, which Lambda sets when tracing is active: the X-Ray
	// daemon the functions send their AWS calls' subsegments to (package xray).
	XRayDaemon string
	// TimerPeriod is TIMER_PERIOD, the local stack's timer tick (default 10s; a Go duration).
	// Local stack and tests only: on AWS the timer runs every TimerPeriod (one minute).
	TimerPeriod time.Duration
	// LogLevel is LOG_LEVEL (DEBUG, INFO, WARN, ERROR; default INFO), for the local programs' logs.
	// The Lambda functions log at the level Lambda's own logging configuration sets.
	LogLevel slog.Level
}

// DefaultMaxHop is WEBHOOK_MAX_HOP's default and largest value: SQS's longest message delay
// (sqsqueue.MaxDelay; a test of package workers keeps the two equal, so that package app, which
// the API functions build from, does not link the queue adapter).
const DefaultMaxHop = 15 * time.Minute

// Function names a program whose configuration LoadConfig checks: a Lambda function of
// template.yaml, or the operators' tool.
type Function string

// The programs LoadConfig knows the needs of.
const (
	VehiclesFunction   Function = "vehicles"
	ClientsFunction    Function = "clients"
	DealsFunction      Function = "deals"
	AuthorizerFunction Function = "authorizer"
	DispatcherFunction Function = "dispatcher"
	// IndexerFunction keeps q's word items from the resource tables' streams.
	IndexerFunction   Function = "indexer"
	DelivererFunction Function = "deliverer"
	// TimerFunction fires the timed events of activities and financial records.
	TimerFunction   Function = "timer"
	SweeperFunction Function = "sweeper"
	// ConsoleFunction serves the console, the dealership's web application.
	ConsoleFunction Function = "console"
	// ImagesFunction turns uploaded photos into their variants.
	ImagesFunction Function = "images"
	// AdminTool is the operators' tool (cmd/admin): teams and keys, webhooks and deliveries. It
	// needs DELIVERY_QUEUE_URL only to replay deliveries.
	AdminTool Function = "admin"
)

// needs lists the variables each program cannot start without. It is the one place that says so:
// LoadConfig checks it, and so do the builders (API, Authorizer, Dispatcher, Deliverer, Webhooks)
// through Config.Require.
var needs = map[Function][]string{
	VehiclesFunction:   {"ACCOUNTS_TABLE", "VEHICLES_TABLE"},
	ClientsFunction:    {"ACCOUNTS_TABLE", "CLIENTS_TABLE"},
	DealsFunction:      {"ACCOUNTS_TABLE", "DEALS_TABLE", "VEHICLES_TABLE", "CLIENTS_TABLE"},
	AuthorizerFunction: {"ACCOUNTS_TABLE"},
	DispatcherFunction: {"WEBHOOKS_TABLE", "DELIVERIES_TABLE", "AUDIT_TABLE", "DELIVERY_QUEUE_URL"},
	IndexerFunction:    {"VEHICLES_TABLE", "CLIENTS_TABLE", "DEALS_TABLE"},
	DelivererFunction:  {"ACCOUNTS_TABLE", "WEBHOOKS_TABLE", "DELIVERIES_TABLE", "DELIVERY_QUEUE_URL", "ALERT_SENDER_EMAIL"},
	SweeperFunction:    {"DELIVERIES_TABLE", "DELIVERY_QUEUE_URL"},
	AdminTool:          {"ACCOUNTS_TABLE", "WEBHOOKS_TABLE", "DELIVERIES_TABLE", "AUDIT_TABLE"},
	ConsoleFunction: {"ACCOUNTS_TABLE", "WEBHOOKS_TABLE", "DELIVERIES_TABLE", "DELIVERY_QUEUE_URL", "ACTIVITIES_TABLE",
		"FINANCIAL_TABLE", "VEHICLES_TABLE", "CLIENTS_TABLE", "DEALS_TABLE", "AUDIT_TABLE", "ALERT_SENDER_EMAIL",
		"COGNITO_USER_POOL_ID", "COGNITO_CLIENT_ID"},
	TimerFunction:  {"ACTIVITIES_TABLE", "FINANCIAL_TABLE"},
	ImagesFunction: {"VEHICLES_TABLE", "PHOTOS_BUCKET", "PHOTOS_URL"},
}

// localKnobs are the variables that exist only on the local stack and in tests: a Lambda function
// refuses to start with any of them set (RefuseLocalKnobs).
var localKnobs = []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE"}

// stringVars maps the name of each plain string variable to the field of c that holds it.
func (c *Config) stringVars() map[string]*string {
	return map[string]*string{
		"VEHICLES_TABLE":          &c.Tables.Vehicles,
		"CLIENTS_TABLE":           &c.Tables.Clients,
		"DEALS_TABLE":             &c.Tables.Deals,
		"ACCOUNTS_TABLE":          &c.Tables.Accounts,
		"WEBHOOKS_TABLE":          &c.Tables.Webhooks,
		"DELIVERIES_TABLE":        &c.Tables.Deliveries,
		"ACTIVITIES_TABLE":        &c.Tables.Activities,
		"FINANCIAL_TABLE":         &c.Tables.Financial,
		"AUDIT_TABLE":             &c.Tables.Audit,
		"PHOTOS_BUCKET":           &c.PhotosBucket,
		"PHOTOS_URL":              &c.PhotosURL,
		"COGNITO_USER_POOL_ID":    &c.UserPoolID,
		"COGNITO_CLIENT_ID":       &c.UserPoolClientID,
		"CONSOLE_URL":             &c.ConsoleURL,
		"DELIVERY_QUEUE_URL":      &c.QueueURL,
		"ALERT_SENDER_EMAIL":      &c.AlertSender,
		"WEBHOOK_CA_FILE":         &c.CAFile,
		"METRICS_NAMESPACE":       &c.MetricsNamespace,
		"AWS_XRAY_DAEMON_ADDRESS": &c.XRayDaemon,
	}
}

// LoadConfig reads the configuration through lookup (os.LookupEnv; a map in tests) and checks that
// every variable the given programs need is set (Require), so that a misconfigured program fails at
// start with one error naming every missing or malformed variable. With no programs it only reads
// and parses.
func LoadConfig(lookup func(string) (string, bool), fns ...Function) (Config, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	c := Config{WebhookTimeout: webhook.DefaultTimeout, MaxHop: DefaultMaxHop, TimerPeriod: 10 * time.Second,
		SweepAfter: webhook.DefaultSweepAfter}
	for name, dst := range c.stringVars() {
		*dst = get(name)
	}
	var errs []error
	var err error
	if c.RetrySchedule, err = webhook.ParseSchedule(get("WEBHOOK_RETRY_SCHEDULE")); err != nil {
		errs = append(errs, fmt.Errorf("app: WEBHOOK_RETRY_SCHEDULE: %w", err))
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"WEBHOOK_TIMEOUT", &c.WebhookTimeout}, {"WEBHOOK_MAX_HOP", &c.MaxHop}, {"TIMER_PERIOD", &c.TimerPeriod},
		{"WEBHOOK_SWEEP_AFTER", &c.SweepAfter}} {
		if v := get(d.name); v != "" {
			if parsed, err := time.ParseDuration(v); err != nil || parsed <= 0 {
				errs = append(errs, fmt.Errorf("app: %s=%q is not a positive Go duration", d.name, v))
			} else {
				*d.dst = parsed
			}
		}
	}
	if v := get("WEBHOOK_ALLOW_PRIVATE_TARGETS"); v != "" {
		if c.AllowPrivateTargets, err = strconv.ParseBool(v); err != nil {
			errs = append(errs, fmt.Errorf("app: WEBHOOK_ALLOW_PRIVATE_TARGETS=%q is not a boolean", v))
		}
	}
	if v := get("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Errorf("app: LOG_LEVEL=%q is not DEBUG, INFO, WARN or ERROR", v))
		}
	}
	errs = append(errs, c.Require(fns...))
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Require fails when c lacks a variable one of fns needs, naming every missing variable and the
// programs that need them. An unknown program is an error too.
func (c Config) Require(fns ...Function) error {
	vars := c.stringVars()
	var missing []string
	for _, fn := range fns {
		names, ok := needs[fn]
		if !ok {
			return fmt.Errorf("app: unknown function %q", fn)
		}
		for _, name := range names {
			if *vars[name] == "" && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(fns))
	for i, fn := range fns {
		names[i] = string(fn)
	}
	return fmt.Errorf("app: %s not set (needed by %s)", strings.Join(missing, ", "), strings.Join(names, ", "))
}

// RefuseLocalKnobs fails when an unsafe local-only knob is set through lookup, even to an empty
// value (WEBHOOK_ALLOW_PRIVATE_TARGETS, WEBHOOK_CA_FILE): the Lambda entry points call it before
// anything else, so a Lambda function never runs with them.
func RefuseLocalKnobs(lookup func(string) (string, bool)) error {
	for _, name := range localKnobs {
		if _, set := lookup(name); set {
			return fmt.Errorf("app: %s is set; it exists only on the local stack and in tests", name)
		}
	}
	return nil
}

// Logger returns the JSON logger of the local programs, on stderr at c.LogLevel.
func (c Config) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: c.LogLevel}))
}
