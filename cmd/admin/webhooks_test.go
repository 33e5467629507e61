package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
)

// These tests run the webhooks and deliveries commands as an operator does, through the real
// command tree with --json, against DynamoDB Local (and moto's SQS for the delivery queue). The
// tables' environment (ACCOUNTS_TABLE and the like) makes the tool treat the target as AWS: private
// targets are refused, as in production.

// publicURL is a target whose host is a public address literal: the tool accepts it without DNS.
const publicURL = "https://93.184.215.14/hooks/patio"

// mainEnv makes the test binary run the tool's main instead of the tests (see TestMain).
const mainEnv = "PATIO_ADMIN_TEST_RUN_MAIN"

// TestMain lets TestWebhooksExitStatus run the tool as a process: with mainEnv set, the test
// binary is the tool, its arguments the tool's arguments.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Args = append([]string{"admin"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// webhookJSON is what webhooks create|get|update|enable|disable|delete|rotate-secret print.
type webhookJSON struct {
	ID       string   `json:"id"`
	TeamID   string   `json:"team_id"`
	URL      string   `json:"url"`
	Events   []string `json:"events"`
	Status   string   `json:"status"`
	MaxRate  *int     `json:"max_rate"`
	Secret   string   `json:"secret"`
	Previous []struct {
		SignsUntil string `json:"signs_until"`
	} `json:"previous_secrets"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// deliveryJSON is one delivery as deliveries list and replay print it.
type deliveryJSON struct {
	ID        string            `json:"id"`
	WebhookID string            `json:"webhook_id"`
	TeamID    string            `json:"team_id"`
	EventID   string            `json:"event_id"`
	EventType string            `json:"event_type"`
	Status    string            `json:"status"`
	Series    int               `json:"series"`
	Attempt   int               `json:"attempt"`
	Attempts  []json.RawMessage `json:"attempts"`
}

// runAdmin runs the tool with args plus --json, as main does, and returns what it printed and its
// error.
func runAdmin(args ...string) (string, error) {
	var out bytes.Buffer
	root, c := newRoot(&out)
	root.SetArgs(append(slices.Clone(args), "--json"))
	err := root.ExecuteContext(context.Background())
	if err != nil && !c.reported {
		_ = c.fail(err) // as main does
	}
	return out.String(), err
}

// adminOK runs the tool, which must succeed and print one JSON object; it decodes that object
// into a T and also returns it raw.
func adminOK[T any](t *testing.T, args ...string) (T, string) {
	t.Helper()
	var v T
	out, err := runAdmin(args...)
	if err != nil {
		t.Fatalf("admin %s = %v (printed %s); want success", strings.Join(args, " "), err, out)
	}
	oneObject(t, args, out)
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("admin %s printed %s: %v", strings.Join(args, " "), out, err)
	}
	return v, out
}

// adminFails runs the tool, which must fail and print exactly {"error": "..."}; it returns the
// message.
func adminFails(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runAdmin(args...)
	if err == nil {
		t.Fatalf("admin %s succeeded (printed %s); want an error", strings.Join(args, " "), out)
	}
	return errorObject(t, args, out)
}

// oneObject checks that out is exactly one JSON object.
func oneObject(t *testing.T, args []string, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var v map[string]any
	if err := dec.Decode(&v); err != nil || v == nil {
		t.Fatalf("admin %s printed %q; want one JSON object (%v)", strings.Join(args, " "), out, err)
	}
	if dec.More() {
		t.Fatalf("admin %s printed %q; want exactly one JSON object", strings.Join(args, " "), out)
	}
	return v
}

// errorObject checks that out is {"error": "<non-empty message>"} and returns the message.
func errorObject(t *testing.T, args []string, out string) string {
	t.Helper()
	v := oneObject(t, args, out)
	msg, _ := v["error"].(string)
	if len(v) != 1 || msg == "" {
		t.Fatalf("admin %s printed %s; want exactly {\"error\": \"...\"}", strings.Join(args, " "), out)
	}
	return msg
}

// wantError checks an error message against a wanted fragment.
func wantError(t *testing.T, args []string, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("admin %s: error %q; want it to contain %q", strings.Join(args, " "), got, want)
	}
}

// checkSecret checks the secret format: "whsec_" then the standard base64 of 32 bytes.
func checkSecret(t *testing.T, secret string) {
	t.Helper()
	rest, ok := strings.CutPrefix(secret, webhook.SecretPrefix)
	if !ok {
		t.Fatalf("secret %q; want the prefix %s", secret, webhook.SecretPrefix)
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(b) != 32 {
		t.Fatalf("secret %q: base64 of %d bytes (%v); want the standard base64 of 32 bytes", secret, len(b), err)
	}
}

// noSecret checks that out (what a command other than create and rotate-secret printed) shows no
// secret at all.
func noSecret(t *testing.T, args []string, out string, secrets ...string) {
	t.Helper()
	if strings.Contains(out, `"secret"`) || strings.Contains(out, webhook.SecretPrefix) {
		t.Errorf("admin %s printed a secret: %s", strings.Join(args, " "), out)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(out, strings.TrimPrefix(s, webhook.SecretPrefix)) {
			t.Errorf("admin %s printed the secret %s: %s", strings.Join(args, " "), s, out)
		}
	}
}

// setup creates the tables (once per package) and returns a store on them.
func setup(t *testing.T) *dynamostore.Store {
	t.Helper()
	testenv.Tables(t)
	return dynamostore.New(testenv.AWSConfig(t), envTables(t))
}

// envTables are the tables testenv.Tables names in the environment, read as the tool reads them.
func envTables(t *testing.T) dynamostore.Tables {
	t.Helper()
	c, err := app.LoadConfig(os.LookupEnv, app.AdminTool)
	if err != nil {
		t.Fatal(err)
	}
	return c.Tables
}

// newTeam stores a new team and returns its id. (Teams are not under test here; teams create would
// warn on stderr that the team has no API Gateway key.)
func newTeam(t *testing.T) string {
	t.Helper()
	team, err := patio.NewTeam("Hooks "+uuid.NewString()[:8], "ops@example.com", "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(setup(t).DB()).CreateTeam(context.Background(), team); err != nil {
		t.Fatalf("CreateTeam: %v", err)
	}
	return team.ID
}

// newWebhook creates a webhook with the tool and returns what create printed.
func newWebhook(t *testing.T, team, events string) webhookJSON {
	t.Helper()
	w, _ := adminOK[webhookJSON](t, "webhooks", "create", "--team", team, "--url", publicURL, "--events", events)
	if w.ID == "" || w.Secret == "" {
		t.Fatalf("webhooks create printed %+v; want an id and a secret", w)
	}
	return w
}

func TestWebhooksCreate(t *testing.T) {
	store := setup(t)
	ctx := context.Background()
	team := newTeam(t)
	t.Setenv("WEBHOOK_ALLOW_PRIVATE_TARGETS", "false") // as on AWS, whatever the caller's environment

	tests := []struct {
		name       string
		team       string // default: team
		url        string // default: publicURL
		events     string
		maxRate    string   // --max-rate, when given
		wantEvents []string // on success
		wantRate   int      // on success: the max_rate printed (0: null)
		wantErr    string   // a fragment of the error; "" for success
	}{
		{name: "named events", events: "vehicle.created,deal.won", wantEvents: []string{"vehicle.created", "deal.won"}},
		{name: "all events", events: "*", wantEvents: []string{"*"}},
		{name: "spaces and duplicates", events: " client.updated, deal.lost ,client.updated",
			wantEvents: []string{"client.updated", "deal.lost"}},
		{name: "every event type by name", events: strings.Join(webhook.EventTypes, ","), wantEvents: webhook.EventTypes},
		{name: "url with port and query", url: "https://93.184.215.14:8443/in?source=patio", events: "deal.won",
			wantEvents: []string{"deal.won"}},
		{name: "with a max rate", events: "*", maxRate: "50", wantEvents: []string{"*"}, wantRate: 50},
		{name: "max rate none", events: "*", maxRate: "none", wantEvents: []string{"*"}},
		{name: "max rate too high", events: "*", maxRate: "1001", wantErr: "max_rate must be between 1 and 1000"},
		{name: "max rate not a number", events: "*", maxRate: "lots", wantErr: "max_rate must be between 1 and 1000"},

		{name: "http url", url: "http://93.184.215.14/hooks", events: "*", wantErr: "url must use https"},
		{name: "no scheme", url: "hooks.example.com/in", events: "*", wantErr: "absolute https URL"},
		{name: "user information", url: "https://user:pw@93.184.215.14/in", events: "*", wantErr: "user information"},
		{name: "fragment", url: "https://93.184.215.14/in#x", events: "*", wantErr: "fragment"},
		{name: "too long", url: "https://93.184.215.14/" + strings.Repeat("a", 2048), events: "*", wantErr: "at most 2048"},
		{name: "loopback target", url: "https://127.0.0.1/in", events: "*", wantErr: "non-public"},
		{name: "private target", url: "https://10.1.2.3/in", events: "*", wantErr: "non-public"},
		{name: "metadata service", url: "https://169.254.169.254/latest/meta-data", events: "*", wantErr: "non-public"},
		{name: "IPv6 loopback", url: "https://[::1]/in", events: "*", wantErr: "non-public"},
		{name: "unknown event type", events: "vehicle.created,vehicle.exploded", wantErr: `unknown event type "vehicle.exploded"`},
		{name: "resource without action", events: "vehicle", wantErr: `unknown event type "vehicle"`},
		{name: "star and a type", events: "*,deal.won", wantErr: "* already covers every type"},
		{name: "no events", events: " , ", wantErr: "at least one event type"},
		{name: "unknown team", team: "no-such-team", events: "*", wantErr: "team not found"},
	}
	var created []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			teamID, url := cmp.Or(tc.team, team), cmp.Or(tc.url, publicURL)
			args := []string{"webhooks", "create", "--team", teamID, "--url", url, "--events", tc.events}
			if tc.maxRate != "" {
				args = append(args, "--max-rate", tc.maxRate)
			}
			if tc.wantErr != "" {
				wantError(t, args, adminFails(t, args...), tc.wantErr)
				return
			}
			w, raw := adminOK[webhookJSON](t, args...)
			if w.ID == "" {
				t.Fatalf("admin %s printed %s; want an id", strings.Join(args, " "), raw)
			}
			created = append(created, w.ID)
			checkSecret(t, w.Secret)
			if w.TeamID != teamID || w.URL != url || w.Status != webhook.StatusActive || !slices.Equal(w.Events, tc.wantEvents) {
				t.Errorf("webhooks create printed team %s, url %s, status %s, events %q; want %s, %s, active, %q",
					w.TeamID, w.URL, w.Status, w.Events, teamID, url, tc.wantEvents)
			}
			if len(w.Previous) != 0 {
				t.Errorf("webhooks create printed previous secrets %+v; want none", w.Previous)
			}
			if got := w.MaxRate; (got == nil) != (tc.wantRate == 0) || (got != nil && *got != tc.wantRate) {
				t.Errorf("webhooks create printed max_rate %v; want %d (0: null)", got, tc.wantRate)
			}
			if _, err := time.Parse(time.RFC3339, w.CreatedAt); err != nil {
				t.Errorf("webhooks create printed created_at %q: %v", w.CreatedAt, err)
			}

			// The secret printed is the one that signs; get shows the webhook without it.
			stored, err := webhookdb.New(store.DB()).WebhookByID(ctx, w.ID)
			if err != nil {
				t.Fatalf("WebhookByID(%s): %v", w.ID, err)
			}
			if stored.Secret != w.Secret || len(stored.Previous) != 0 {
				t.Errorf("stored secrets %q and %d previous; want the printed secret %q alone", stored.Secret, len(stored.Previous), w.Secret)
			}
			getArgs := []string{"webhooks", "get", "--id", w.ID}
			got, out := adminOK[webhookJSON](t, getArgs...)
			noSecret(t, getArgs, out, w.Secret)
			if got.ID != w.ID || got.TeamID != w.TeamID || got.URL != w.URL || got.Status != w.Status ||
				!slices.Equal(got.Events, w.Events) || got.CreatedAt != w.CreatedAt {
				t.Errorf("webhooks get = %+v; want what create printed (%+v) without the secret", got, w)
			}
		})
	}

	t.Run("refused webhooks are not stored", func(t *testing.T) {
		args := []string{"webhooks", "list", "--team", team}
		list, out := adminOK[struct{ Webhooks []webhookJSON }](t, args...)
		var ids []string
		for _, w := range list.Webhooks {
			ids = append(ids, w.ID)
		}
		slices.Sort(ids)
		slices.Sort(created)
		if !slices.Equal(ids, created) {
			t.Errorf("webhooks list --team %s = %q; want the created ones only, %q", team, ids, created)
		}
		noSecret(t, args, out)
	})

	t.Run("each webhook gets its own secret", func(t *testing.T) {
		a, b := newWebhook(t, team, "*"), newWebhook(t, team, "*")
		if a.Secret == b.Secret {
			t.Errorf("two webhooks got the same secret %s", a.Secret)
		}
	})
}

// TestWebhooksExitStatus runs the tool as a process: a refused command exits 1 and prints only
// {"error": ...} with --json; a successful one exits 0.
func TestWebhooksExitStatus(t *testing.T) {
	setup(t)
	team := newTeam(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string // for wantCode != 0
	}{
		{name: "create", args: []string{"webhooks", "create", "--team", team, "--url", publicURL, "--events", "*"}},
		{name: "http url", args: []string{"webhooks", "create", "--team", team, "--url", "http://93.184.215.14/in", "--events", "*"},
			wantCode: 1, wantErr: "url must use https"},
		{name: "unknown event type", args: []string{"webhooks", "create", "--team", team, "--url", publicURL, "--events", "deal.signed"},
			wantCode: 1, wantErr: `unknown event type "deal.signed"`},
		{name: "unknown webhook", args: []string{"webhooks", "get", "--id", "no-such-webhook"}, wantCode: 1, wantErr: "webhook not found"},
		{name: "replay of an unknown delivery", args: []string{"deliveries", "replay", "--id", "dlv_nosuchdelivery"},
			wantCode: 1, wantErr: "delivery not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(slices.Clone(tc.args), "--json")
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), mainEnv+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Fatalf("admin %s exited %d (stdout %s, stderr %s); want %d", strings.Join(args, " "), code,
					stdout.String(), stderr.String(), tc.wantCode)
			}
			if tc.wantCode == 0 {
				var w webhookJSON
				oneObject(t, args, stdout.String())
				if err := json.Unmarshal(stdout.Bytes(), &w); err != nil || w.ID == "" {
					t.Fatalf("admin %s printed %s; want the webhook (%v)", strings.Join(args, " "), stdout.String(), err)
				}
				checkSecret(t, w.Secret)
				return
			}
			wantError(t, args, errorObject(t, args, stdout.String()), tc.wantErr)
		})
	}
}

func TestWebhooksEnableDisable(t *testing.T) {
	setup(t)
	team := newTeam(t)
	w := newWebhook(t, team, "vehicle.sold")

	steps := []struct {
		cmd        string // webhooks <cmd> --id W
		wantStatus string
	}{
		{"get", webhook.StatusActive},
		{"disable", webhook.StatusDisabled},
		{"get", webhook.StatusDisabled},
		{"disable", webhook.StatusDisabled}, // again: no error, no change
		{"get", webhook.StatusDisabled},
		{"enable", webhook.StatusActive},
		{"get", webhook.StatusActive},
		{"enable", webhook.StatusActive},
		{"get", webhook.StatusActive},
	}
	for i, s := range steps {
		args := []string{"webhooks", s.cmd, "--id", w.ID}
		got, out := adminOK[webhookJSON](t, args...)
		if got.ID != w.ID || got.Status != s.wantStatus {
			t.Errorf("step %d: admin %s printed id %s, status %s; want %s, %s", i, strings.Join(args, " "), got.ID, got.Status, w.ID, s.wantStatus)
		}
		if !slices.Equal(got.Events, w.Events) || got.URL != w.URL {
			t.Errorf("step %d: admin %s changed the events or URL: %+v", i, strings.Join(args, " "), got)
		}
		noSecret(t, args, out, w.Secret)
		if s.cmd == "disable" {
			listArgs := []string{"webhooks", "list", "--team", team}
			list, _ := adminOK[struct{ Webhooks []webhookJSON }](t, listArgs...)
			if len(list.Webhooks) != 1 || list.Webhooks[0].Status != webhook.StatusDisabled {
				t.Errorf("step %d: webhooks list after disable = %+v; want the one webhook, disabled", i, list.Webhooks)
			}
		}
	}

	t.Run("unknown webhook", func(t *testing.T) {
		for _, cmd := range []string{"get", "enable", "disable", "rotate-secret"} {
			args := []string{"webhooks", cmd, "--id", "no-such-webhook"}
			wantError(t, args, adminFails(t, args...), "webhook not found")
		}
	})

	t.Run("--id is required", func(t *testing.T) {
		for _, cmd := range []string{"get", "enable", "disable", "rotate-secret"} {
			args := []string{"webhooks", cmd}
			wantError(t, args, adminFails(t, args...), `"id" not set`)
		}
	})
}

// TestWebhooksRotateSecret: each rotation's replaced secret keeps signing for its own grace period;
// at most three secrets sign at once. X-Service-Signature uses the oldest valid secret,
// X-Service-Signature-Next the newest.
func TestWebhooksRotateSecret(t *testing.T) {
	store := setup(t)
	ctx := context.Background()
	team := newTeam(t)
	w := newWebhook(t, team, "*")

	// After each step, signing lists the secrets that sign now, oldest first, as indexes into
	// secrets (0: create's), and graces the grace periods printed, one per previous secret.
	steps := []struct {
		name    string
		flags   []string
		graces  []time.Duration
		signing []int
	}{
		{name: "default grace of 24 h", graces: []time.Duration{24 * time.Hour}, signing: []int{0, 1}},
		{name: "again within the grace period: both previous keep signing", flags: []string{"--grace", "1h"},
			graces: []time.Duration{24 * time.Hour, time.Hour}, signing: []int{0, 1, 2}},
		{name: "a third within grace: the oldest stops, three sign", flags: []string{"--grace", "2h"},
			graces: []time.Duration{time.Hour, 2 * time.Hour}, signing: []int{1, 2, 3}},
		{name: "no grace: the replaced secret stops at once, the others go on", flags: []string{"--grace", "0s"},
			graces: []time.Duration{time.Hour, 2 * time.Hour}, signing: []int{1, 2, 4}},
	}
	secrets := []string{w.Secret}
	started := time.Now().UTC().Truncate(time.Second)
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			args := append([]string{"webhooks", "rotate-secret", "--id", w.ID}, s.flags...)
			got, raw := adminOK[webhookJSON](t, args...)
			after := time.Now().UTC()
			checkSecret(t, got.Secret)
			if slices.Contains(secrets, got.Secret) {
				t.Fatalf("admin %s printed secret %s, which was used before; want a new one", strings.Join(args, " "), got.Secret)
			}
			secrets = append(secrets, got.Secret)
			if got.ID != w.ID || got.Status != webhook.StatusActive {
				t.Errorf("admin %s printed %s", strings.Join(args, " "), raw)
			}
			if len(got.Previous) != len(s.graces) {
				t.Fatalf("admin %s printed %d previous secrets; want %d (%s)", strings.Join(args, " "), len(got.Previous), len(s.graces), raw)
			}
			for i, g := range s.graces {
				checkDeadline(t, "rotate-secret", got.Previous[i].SignsUntil, g, started, after)
			}

			// get shows the same deadlines, never a secret.
			getArgs := []string{"webhooks", "get", "--id", w.ID}
			shown, out := adminOK[webhookJSON](t, getArgs...)
			noSecret(t, getArgs, out, secrets...)
			if !slices.Equal(shown.Previous, got.Previous) {
				t.Errorf("webhooks get: previous secrets %+v; want rotate-secret's %+v", shown.Previous, got.Previous)
			}
			listArgs := []string{"webhooks", "list", "--team", team}
			_, out = adminOK[map[string]any](t, listArgs...)
			noSecret(t, listArgs, out, secrets...)

			// The secrets that sign now.
			stored, err := webhookdb.New(store.DB()).WebhookByID(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			var signing []int
			for _, k := range stored.KeysAt(time.Now()) {
				signing = append(signing, slices.Index(secrets, k))
			}
			if !slices.Equal(signing, s.signing) {
				t.Errorf("signing secrets after rotate-secret: %v; want %v (indexes, oldest first)", signing, s.signing)
			}
		})
	}

	t.Run("bad --grace", func(t *testing.T) {
		args := []string{"webhooks", "rotate-secret", "--id", w.ID, "--grace", "a day"}
		if out, err := runAdmin(args...); err == nil {
			t.Errorf("admin %s succeeded (%s); want an error", strings.Join(args, " "), out)
		}
	})
}

// checkDeadline checks a printed signs_until: grace after a moment between the test's start and
// after (the rotations of one test run within seconds).
func checkDeadline(t *testing.T, what, got string, grace time.Duration, started, after time.Time) {
	t.Helper()
	at, err := time.Parse(time.RFC3339, got)
	if err != nil {
		t.Fatalf("%s: signs_until %q: %v", what, got, err)
	}
	if at.Before(started.Add(grace)) || at.After(after.Add(grace)) {
		t.Errorf("%s: signs_until %s; want %v after the rotation, between %s and %s", what, got, grace,
			started.Add(grace).Format(time.RFC3339), after.Add(grace).Format(time.RFC3339))
	}
}

func TestWebhooksListByTeam(t *testing.T) {
	setup(t)
	teamA, teamB, teamC := newTeam(t), newTeam(t), newTeam(t)
	a1, a2 := newWebhook(t, teamA, "*"), newWebhook(t, teamA, "deal.won")
	b1 := newWebhook(t, teamB, "vehicle.created")
	adminOK[webhookJSON](t, "webhooks", "disable", "--id", a2.ID)

	tests := []struct {
		name string
		team string
		want map[string]string // id → status
	}{
		{"two webhooks, one disabled", teamA, map[string]string{a1.ID: webhook.StatusActive, a2.ID: webhook.StatusDisabled}},
		{"one webhook", teamB, map[string]string{b1.ID: webhook.StatusActive}},
		{"no webhooks", teamC, map[string]string{}},
		{"unknown team", "no-such-team", map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"webhooks", "list", "--team", tc.team}
			list, out := adminOK[struct {
				Webhooks []webhookJSON `json:"webhooks"`
			}](t, args...)
			noSecret(t, args, out, a1.Secret, a2.Secret, b1.Secret)
			if list.Webhooks == nil {
				t.Fatalf("admin %s printed %s; want a webhooks list (empty: [])", strings.Join(args, " "), out)
			}
			got := map[string]string{}
			for _, w := range list.Webhooks {
				got[w.ID] = w.Status
				if w.TeamID != tc.team {
					t.Errorf("admin %s listed webhook %s of team %s", strings.Join(args, " "), w.ID, w.TeamID)
				}
			}
			if len(got) != len(list.Webhooks) || !maps.Equal(got, tc.want) {
				t.Errorf("admin %s = %v; want %v", strings.Join(args, " "), got, tc.want)
			}
		})
	}
}

// deliveriesList runs deliveries list and returns the deliveries.
func deliveriesList(t *testing.T, args ...string) []deliveryJSON {
	t.Helper()
	args = append([]string{"deliveries", "list"}, args...)
	list, out := adminOK[struct {
		Deliveries []deliveryJSON `json:"deliveries"`
	}](t, args...)
	if list.Deliveries == nil {
		t.Fatalf("admin %s printed %s; want a deliveries list (empty: [])", strings.Join(args, " "), out)
	}
	noSecret(t, args, out)
	return list.Deliveries
}

func TestDeliveriesWithoutDeliveries(t *testing.T) {
	setup(t)
	team := newTeam(t)
	w := newWebhook(t, team, "*")

	t.Run("lists", func(t *testing.T) {
		for _, status := range append([]string{""}, webhook.DeliveryStatuses...) {
			args := []string{"--webhook", w.ID}
			if status != "" {
				args = append(args, "--status", status)
			}
			if got := deliveriesList(t, args...); len(got) != 0 {
				t.Errorf("deliveries list %s = %+v; want []", strings.Join(args, " "), got)
			}
		}
	})

	errs := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown webhook", []string{"deliveries", "list", "--webhook", "no-such-webhook"}, "webhook not found"},
		{"unknown status", []string{"deliveries", "list", "--webhook", w.ID, "--status", "delivered"},
			"status must be one of pending, succeeded, failed, cancelled, skipped"},
		{"replay of an unknown delivery", []string{"deliveries", "replay", "--id", "dlv_00000000000000000000000000000000"}, "delivery not found"},
		{"replay without --id", []string{"deliveries", "replay"}, "replay needs --id, or --webhook and --status"},
		{"list without --webhook", []string{"deliveries", "list"}, `"webhook" not set`},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, tc.args, adminFails(t, tc.args...), tc.wantErr)
		})
	}
}

// queueWatcher reads the delivery queue (moto's SQS), keeping every task it saw.
type queueWatcher struct {
	client *sqs.Client
	url    string
	mu     sync.Mutex
	seen   []webhook.Task
}

// deliveryQueue returns the delivery queue's URL and a watcher; without moto it skips the test, or
// fails it under CI=true.
func deliveryQueue(t *testing.T) (webhook.Queue, *queueWatcher) {
	t.Helper()
	cfg := testenv.AWSConfig(t)
	url := os.Getenv("DELIVERY_QUEUE_URL")
	if url == "" || os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no delivery queue (DELIVERY_QUEUE_URL, AWS_ENDPOINT_URL_SQS) under CI=true")
		}
		t.Skip("no delivery queue: run under `go run ./cmd/local with-engines -- go test ...` (moto)")
	}
	return sqsqueue.New(cfg, url, 0), &queueWatcher{client: sqs.NewFromConfig(cfg), url: url}
}

// wait returns the first task for the delivery's series, reading the queue for up to 20 s.
func (q *queueWatcher) wait(t *testing.T, deliveryID string, series int) webhook.Task {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		q.mu.Lock()
		for _, task := range q.seen {
			if task.DeliveryID == deliveryID && task.Series == series {
				q.mu.Unlock()
				return task
			}
		}
		q.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no task for delivery %s series %d on the delivery queue within 20 s", deliveryID, series)
		}
		out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(q.url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatalf("ReceiveMessage: %v", err)
		}
		for _, m := range out.Messages {
			tasks, err := sqsqueue.Decode(aws.ToString(m.Body))
			if err != nil {
				t.Errorf("delivery queue message %s: %v", aws.ToString(m.Body), err)
				continue
			}
			q.mu.Lock()
			q.seen = append(q.seen, tasks...)
			q.mu.Unlock()
			if _, err := q.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatalf("DeleteMessage: %v", err)
			}
		}
	}
}

// vehicleInsert is the change of a new vehicle of team.
func vehicleInsert(team string) webhook.Change {
	ts := patio.NewTimestamp(time.Now())
	return webhook.Change{
		SourceID: uuid.NewString(), Resource: webhook.ResourceVehicle, TeamID: team, At: time.Now(), Written: time.Now(),
		New: patio.Vehicle{ID: uuid.NewString(), TeamID: team, Title: "Toyota Corolla", Brand: "Toyota", Model: "Corolla",
			Price: 11999050, Phase: "preparacao", Status: patio.VehicleActive, CreatedAt: ts, UpdatedAt: ts},
	}
}

// TestDeliveriesReplay records deliveries as the dispatcher does (a skipped one for a disabled
// webhook, a pending one later cancelled by disable) and replays them with the tool.
func TestDeliveriesReplay(t *testing.T) {
	store := setup(t)
	ctx := context.Background()
	queue, watcher := deliveryQueue(t)
	dispatcher := &delivery.Dispatcher{Store: webhookdb.New(store.DB()), Queue: queue, Logger: slog.New(slog.DiscardHandler)}

	tests := []struct {
		name string
		// before the change: disable the webhook (the event is skipped), else it stays active (the
		// delivery is pending, then cancelled by webhooks disable).
		disabledBefore bool
		wantStatus     string
	}{
		{name: "skipped", disabledBefore: true, wantStatus: webhook.DeliverySkipped},
		{name: "cancelled", wantStatus: webhook.DeliveryCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			team := newTeam(t)
			w := newWebhook(t, team, "vehicle.created")
			other := newWebhook(t, team, "deal.won") // not subscribed: gets nothing
			if tc.disabledBefore {
				adminOK[webhookJSON](t, "webhooks", "disable", "--id", w.ID)
			}
			change := vehicleInsert(team)
			if _, err := dispatcher.Dispatch(ctx, []webhook.Change{change}); err != nil {
				t.Fatalf("Dispatch: %v", err)
			}
			eventID := webhook.EventID(change.SourceID, webhook.VehicleCreated)
			id := webhook.DeliveryID(eventID, w.ID)
			if !tc.disabledBefore {
				if got := deliveriesList(t, "--webhook", w.ID, "--status", "pending"); len(got) != 1 || got[0].ID != id {
					t.Fatalf("deliveries list --status pending = %+v; want delivery %s", got, id)
				}
				args := []string{"deliveries", "replay", "--id", id}
				wantError(t, args, adminFails(t, args...), "only finished deliveries (succeeded, failed, cancelled or skipped) can be replayed")
				watcher.wait(t, id, 0) // the dispatcher's first attempt
				adminOK[webhookJSON](t, "webhooks", "disable", "--id", w.ID)
			}

			// The delivery, as the operator finds it.
			for _, st := range []string{"", tc.wantStatus} {
				args := []string{"--webhook", w.ID}
				if st != "" {
					args = append(args, "--status", st)
				}
				got := deliveriesList(t, args...)
				if len(got) != 1 {
					t.Fatalf("deliveries list %s = %+v; want the one delivery", strings.Join(args, " "), got)
				}
				d := got[0]
				if d.ID != id || d.EventID != eventID || d.EventType != webhook.VehicleCreated || d.Status != tc.wantStatus ||
					d.Series != 0 || d.Attempt != 0 || d.WebhookID != w.ID || d.TeamID != team || d.Attempts == nil {
					t.Errorf("deliveries list %s = %+v; want %s of event %s (vehicle.created), %s, series 0, no attempts",
						strings.Join(args, " "), d, id, eventID, tc.wantStatus)
				}
			}
			if got := deliveriesList(t, "--webhook", w.ID, "--status", "pending"); len(got) != 0 {
				t.Errorf("deliveries list --status pending = %+v; want []", got)
			}
			if got := deliveriesList(t, "--webhook", other.ID); len(got) != 0 {
				t.Errorf("deliveries list of the webhook not subscribed to vehicle.created = %+v; want []", got)
			}

			// Refused while the webhook is disabled; nothing changes.
			args := []string{"deliveries", "replay", "--id", id}
			wantError(t, args, adminFails(t, args...), "enable it before replaying")
			if got := deliveriesList(t, "--webhook", w.ID, "--status", tc.wantStatus); len(got) != 1 || got[0].Series != 0 {
				t.Fatalf("after a refused replay, deliveries list --status %s = %+v; want the delivery unchanged", tc.wantStatus, got)
			}

			// Enabled, the replay starts series 1 with the same event id, and queues its first attempt.
			adminOK[webhookJSON](t, "webhooks", "enable", "--id", w.ID)
			d, raw := adminOK[deliveryJSON](t, args...)
			if d.ID != id || d.EventID != eventID || d.Status != webhook.DeliveryPending || d.Series != 1 || d.Attempt != 0 {
				t.Errorf("admin %s printed %s; want delivery %s of event %s, pending, series 1, attempt 0",
					strings.Join(args, " "), raw, id, eventID)
			}
			task := watcher.wait(t, id, 1)
			want := webhook.Task{DeliveryID: id, TeamID: team, WebhookID: w.ID, EventID: eventID, Series: 1, Attempt: 1}
			if task.Due.IsZero() || time.Since(task.Due) > time.Minute {
				t.Errorf("replayed task due %s; want now", task.Due)
			}
			task.Due = time.Time{}
			if task != want {
				t.Errorf("queued task = %+v; want %+v", task, want)
			}
			got := deliveriesList(t, "--webhook", w.ID, "--status", "pending")
			if len(got) != 1 || got[0].ID != id || got[0].EventID != eventID || got[0].Series != 1 {
				t.Errorf("after replay, deliveries list --status pending = %+v; want %s, series 1", got, id)
			}
			if got := deliveriesList(t, "--webhook", w.ID, "--status", tc.wantStatus); len(got) != 0 {
				t.Errorf("after replay, deliveries list --status %s = %+v; want []", tc.wantStatus, got)
			}

			// A pending delivery cannot be replayed again.
			wantError(t, args, adminFails(t, args...), "is pending")
		})
	}
}
