package app_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
)

// env is a lookup over a fixed environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// allSet is the environment template.yaml gives the deliverer, the function that needs the most.
var allSet = map[string]string{
	"VEHICLES_TABLE": "v", "CLIENTS_TABLE": "c", "DEALS_TABLE": "d", "ACCOUNTS_TABLE": "a",
	"WEBHOOKS_TABLE": "w", "DELIVERIES_TABLE": "dl", "DELIVERY_QUEUE_URL": "https://queue",
	"ALERT_SENDER_EMAIL": "alerts@example.com", "LOG_LEVEL": "WARN", "AUDIT_TABLE": "au",
	"ACTIVITIES_TABLE": "ac", "FINANCIAL_TABLE": "f", "COGNITO_USER_POOL_ID": "pool", "COGNITO_CLIENT_ID": "client",
}

// without returns allSet less the named variables.
func without(names ...string) map[string]string {
	m := map[string]string{}
	for k, v := range allSet {
		m[k] = v
	}
	for _, n := range names {
		delete(m, n)
	}
	return m
}

func TestLoadConfigRequirements(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		fns     []app.Function
		missing []string // variables the error must name; none for success
	}{
		{name: "everything set", env: allSet, fns: []app.Function{app.VehiclesFunction, app.ClientsFunction,
			app.DealsFunction, app.AuthorizerFunction, app.DispatcherFunction, app.IndexerFunction, app.DelivererFunction, app.SweeperFunction,
			app.AdminTool}},
		{name: "no function, nothing needed", env: map[string]string{}},
		{name: "vehicles alone", env: map[string]string{"ACCOUNTS_TABLE": "a", "VEHICLES_TABLE": "v"},
			fns: []app.Function{app.VehiclesFunction}},
		{name: "vehicles without accounts", env: without("ACCOUNTS_TABLE"), fns: []app.Function{app.VehiclesFunction},
			missing: []string{"ACCOUNTS_TABLE"}},
		{name: "clients without its table", env: without("CLIENTS_TABLE"), fns: []app.Function{app.ClientsFunction},
			missing: []string{"CLIENTS_TABLE"}},
		{name: "deals needs vehicles and clients", env: map[string]string{"ACCOUNTS_TABLE": "a", "DEALS_TABLE": "d"},
			fns: []app.Function{app.DealsFunction}, missing: []string{"VEHICLES_TABLE", "CLIENTS_TABLE"}},
		{name: "authorizer", env: map[string]string{}, fns: []app.Function{app.AuthorizerFunction},
			missing: []string{"ACCOUNTS_TABLE"}},
		{name: "dispatcher without queue", env: without("DELIVERY_QUEUE_URL"), fns: []app.Function{app.DispatcherFunction},
			missing: []string{"DELIVERY_QUEUE_URL"}},
		{name: "dispatcher needs no alert sender", env: without("ALERT_SENDER_EMAIL", "ACCOUNTS_TABLE"),
			fns: []app.Function{app.DispatcherFunction}},
		{name: "indexer needs the tables with words alone", env: map[string]string{"VEHICLES_TABLE": "v", "CLIENTS_TABLE": "c", "DEALS_TABLE": "d"},
			fns: []app.Function{app.IndexerFunction}},
		{name: "indexer without its tables", env: without("VEHICLES_TABLE", "CLIENTS_TABLE", "DEALS_TABLE"),
			fns: []app.Function{app.IndexerFunction}, missing: []string{"VEHICLES_TABLE", "CLIENTS_TABLE", "DEALS_TABLE"}},
		{name: "deliverer", env: map[string]string{"WEBHOOKS_TABLE": "w", "DELIVERIES_TABLE": "dl"},
			fns:     []app.Function{app.DelivererFunction},
			missing: []string{"ACCOUNTS_TABLE", "DELIVERY_QUEUE_URL", "ALERT_SENDER_EMAIL"}},
		{name: "sweeper needs its queue", env: without("DELIVERY_QUEUE_URL", "ACCOUNTS_TABLE", "WEBHOOKS_TABLE"),
			fns: []app.Function{app.SweeperFunction}, missing: []string{"DELIVERY_QUEUE_URL"}},
		{name: "admin needs no queue", env: without("DELIVERY_QUEUE_URL"), fns: []app.Function{app.AdminTool}},
		{name: "admin without webhook tables", env: without("WEBHOOKS_TABLE", "DELIVERIES_TABLE"),
			fns: []app.Function{app.AdminTool}, missing: []string{"WEBHOOKS_TABLE", "DELIVERIES_TABLE"}},
		{name: "several functions name each variable once", env: map[string]string{},
			fns:     []app.Function{app.VehiclesFunction, app.DealsFunction},
			missing: []string{"ACCOUNTS_TABLE", "VEHICLES_TABLE", "DEALS_TABLE", "CLIENTS_TABLE"}},
		{name: "console", env: allSet, fns: []app.Function{app.ConsoleFunction}},
		{name: "console without its user pool", env: without("COGNITO_USER_POOL_ID", "COGNITO_CLIENT_ID", "AUDIT_TABLE"),
			fns: []app.Function{app.ConsoleFunction}, missing: []string{"COGNITO_USER_POOL_ID", "COGNITO_CLIENT_ID", "AUDIT_TABLE"}},
		{name: "unknown function", env: allSet, fns: []app.Function{"reports"}, missing: []string{`"reports"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := app.LoadConfig(env(tt.env), tt.fns...)
			if len(tt.missing) == 0 {
				if err != nil {
					t.Errorf("LoadConfig(%v) = %v; want no error", tt.fns, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("LoadConfig(%v) = nil error; want one naming %v", tt.fns, tt.missing)
			}
			for _, name := range tt.missing {
				if strings.Count(err.Error(), name) != 1 {
					t.Errorf("LoadConfig(%v) = %q; want %s named once", tt.fns, err, name)
				}
			}
		})
	}
}

func TestLoadConfigValues(t *testing.T) {
	c, err := app.LoadConfig(env(allSet))
	if err != nil {
		t.Fatal(err)
	}
	want := dynamostore.Tables{Vehicles: "v", Clients: "c", Deals: "d", Accounts: "a", Webhooks: "w", Deliveries: "dl",
		Activities: "ac", Financial: "f", Audit: "au"}
	if c.Tables != want {
		t.Errorf("Tables = %+v; want %+v", c.Tables, want)
	}
	if c.UserPoolID != "pool" || c.UserPoolClientID != "client" {
		t.Errorf("UserPoolID, UserPoolClientID = %q, %q; want the variables' values", c.UserPoolID, c.UserPoolClientID)
	}
	if c.QueueURL != "https://queue" || c.AlertSender != "alerts@example.com" {
		t.Errorf("QueueURL, AlertSender = %q, %q; want the variables' values", c.QueueURL, c.AlertSender)
	}
	if c.LogLevel != slog.LevelWarn {
		t.Errorf("LogLevel = %v; want WARN", c.LogLevel)
	}

	defaults, err := app.LoadConfig(env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if defaults.WebhookTimeout != 5*time.Second || defaults.MaxHop != 15*time.Minute || defaults.SweepAfter != 3*time.Minute ||
		defaults.AllowPrivateTargets ||
		defaults.CAFile != "" || defaults.LogLevel != slog.LevelInfo || len(defaults.RetrySchedule) != 6 {
		t.Errorf("LoadConfig(empty) = %+v; want the defaults (5s timeout, 15m hop, default retry schedule, INFO)", defaults)
	}

	knobs, err := app.LoadConfig(env(map[string]string{"WEBHOOK_RETRY_SCHEDULE": "0s,1s,2s,3s,4s,5s",
		"WEBHOOK_TIMEOUT": "2s", "WEBHOOK_MAX_HOP": "3s", "WEBHOOK_SWEEP_AFTER": "4s", "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
		"WEBHOOK_CA_FILE": "ca.pem", "LOG_LEVEL": "debug"}))
	if err != nil {
		t.Fatal(err)
	}
	if knobs.WebhookTimeout != 2*time.Second || knobs.MaxHop != 3*time.Second || knobs.SweepAfter != 4*time.Second ||
		!knobs.AllowPrivateTargets ||
		knobs.CAFile != "ca.pem" || knobs.LogLevel != slog.LevelDebug || knobs.RetrySchedule[5] != 5*time.Second {
		t.Errorf("LoadConfig(knobs) = %+v; want the knobs' values", knobs)
	}
}

func TestLoadConfigMalformed(t *testing.T) {
	tests := []struct {
		name, variable, value string
	}{
		{"schedule", "WEBHOOK_RETRY_SCHEDULE", "0s,5m"},
		{"timeout", "WEBHOOK_TIMEOUT", "five seconds"},
		{"negative timeout", "WEBHOOK_TIMEOUT", "-1s"},
		{"max hop", "WEBHOOK_MAX_HOP", "0s"},
		{"sweep after", "WEBHOOK_SWEEP_AFTER", "soon"},
		{"private targets", "WEBHOOK_ALLOW_PRIVATE_TARGETS", "maybe"},
		{"log level", "LOG_LEVEL", "TRACE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := app.LoadConfig(env(map[string]string{tt.variable: tt.value})); err == nil || !strings.Contains(err.Error(), tt.variable) {
				t.Errorf("LoadConfig(%s=%q) = %v; want an error naming %s", tt.variable, tt.value, err, tt.variable)
			}
		})
	}
}

func TestRefuseLocalKnobs(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		refused string // the variable the refusal names; "" for none
	}{
		{name: "template environment", env: allSet},
		{name: "private targets", env: map[string]string{"WEBHOOK_ALLOW_PRIVATE_TARGETS": "false"}, refused: "WEBHOOK_ALLOW_PRIVATE_TARGETS"},
		{name: "CA file, even empty", env: map[string]string{"WEBHOOK_CA_FILE": ""}, refused: "WEBHOOK_CA_FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := app.RefuseLocalKnobs(env(tt.env))
			if tt.refused == "" && err != nil {
				t.Errorf("RefuseLocalKnobs(%v) = %v; want nil", tt.env, err)
			}
			if tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)) {
				t.Errorf("RefuseLocalKnobs(%v) = %v; want a refusal naming %s", tt.env, err, tt.refused)
			}
		})
	}
}
