package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// loadSample reads a sample event from events/, as AWS delivers it, into T.
func loadSample[T any](t *testing.T, name string) T {
	t.Helper()
	var e T
	data, err := os.ReadFile(filepath.Join("..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

// envConfig is the configuration the functions read from the environment that testenv.Tables sets.
func envConfig(t testing.TB) app.Config {
	t.Helper()
	c, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loadEvent reads a sample API Gateway proxy event from events/.
func loadEvent(t *testing.T, name string) events.APIGatewayProxyRequest {
	t.Helper()
	return loadSample[events.APIGatewayProxyRequest](t, name)
}

// withKeyAndID points a sample event at a real key and, for item routes, a real id.
func withKeyAndID(e events.APIGatewayProxyRequest, key, id string) events.APIGatewayProxyRequest {
	auth := "Bearer " + key
	e.Headers["Authorization"] = auth
	e.MultiValueHeaders["Authorization"] = []string{auth}
	if old, ok := e.PathParameters["id"]; ok {
		e.PathParameters["id"] = id
		e.Path = strings.ReplaceAll(e.Path, old, id)
		e.RequestContext.Path = strings.ReplaceAll(e.RequestContext.Path, old, id)
	}
	return e
}

type envelope struct {
	Success    bool            `json:"success"`
	Data       json.RawMessage `json:"data"`
	Pagination *struct {
		Total int `json:"total"`
	} `json:"pagination"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// TestLambdaEventsThroughTheAdapter feeds each resource's sample events (events/<resource>-*.json)
// through its Lambda function's handler: create, get, update, list, delete, and a get of an unknown id.
func TestLambdaEventsThroughTheAdapter(t *testing.T) {
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	ctx := context.Background()
	store := dynamostore.New(cfg, envConfig(t).Tables)
	team, _ := patio.NewTeam("Lambda", "ops@example.com", "starter")
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	key, secret, _ := patio.NewAPIKey(team.ID, "lambda", patio.Scopes, patio.TestKeyPrefix)
	if err := accountdb.NewAccounts(store.DB()).CreateKey(ctx, key); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		resource     app.Resource
		field, value string // a member of the created record, as normalised from the sample body
		deleted      string // the status DELETE leaves
	}{
		{resource: app.Vehicles, field: "plate", value: "ABC1D23", deleted: "arquivado"},
		{resource: app.Clients, field: "cnpj", value: "12ABC34501DE35", deleted: "inactive"},
		{resource: app.Deals, field: "phase", value: "lead", deleted: "arquivado"},
	}
	// The deal sample names a placeholder client; the test puts a real active client in its place.
	client, err := patio.NewClients(store.Clients()).Create(ctx, team.ID, patio.ClientInput{
		Type: patio.Some(patio.ClientIndividual), Name: patio.Some("Maria"), CPF: patio.Some("529.982.247-25")})
	if err != nil {
		t.Fatal(err)
	}
	const placeholderClient = "0193a2b4-0000-7000-8000-00000000c1e7"
	for _, tt := range tests {
		t.Run(string(tt.resource), func(t *testing.T) {
			h, err := app.LambdaAPI(ctx, slog.New(slog.NewJSONHandler(io.Discard, nil)), tt.resource)
			if err != nil {
				t.Fatal(err)
			}
			invoke := func(t *testing.T, op, id string, want int) envelope {
				t.Helper()
				name := string(tt.resource) + "-" + op + ".json"
				e := withKeyAndID(loadEvent(t, name), secret, id)
				e.Body = strings.ReplaceAll(e.Body, placeholderClient, client.ID)
				res, err := h(ctx, e)
				if err != nil {
					t.Fatalf("%s: handler error %v", name, err)
				}
				if res.StatusCode != want {
					t.Fatalf("%s: status %d %s; want %d", name, res.StatusCode, res.Body, want)
				}
				got := res.Headers["X-Request-Id"]
				if ids := res.MultiValueHeaders["X-Request-Id"]; got == "" && len(ids) == 1 {
					got = ids[0]
				}
				if got != e.RequestContext.RequestID {
					t.Errorf("%s: X-Request-Id = %q; want API Gateway's request id %q", name, got, e.RequestContext.RequestID)
				}
				var env envelope
				if err := json.Unmarshal([]byte(res.Body), &env); err != nil {
					t.Fatalf("%s: body %q is not the envelope: %v", name, res.Body, err)
				}
				return env
			}
			record := func(t *testing.T, env envelope) map[string]any {
				t.Helper()
				var m map[string]any
				if err := json.Unmarshal(env.Data, &m); err != nil {
					t.Fatalf("data %s is not an object: %v", env.Data, err)
				}
				return m
			}

			created := record(t, invoke(t, "create", "", 201))
			id, _ := created["id"].(string)
			if created[tt.field] != tt.value {
				t.Fatalf("created %s = %v; want %s", tt.field, created[tt.field], tt.value)
			}
			if got := invoke(t, "get", id, 200); !strings.Contains(string(got.Data), id) {
				t.Errorf("get returned %s", got.Data)
			}
			invoke(t, "update", id, 200)
			if list := invoke(t, "list", "", 200); list.Pagination == nil || list.Pagination.Total != 1 {
				t.Errorf("list pagination = %+v; want total 1", list.Pagination)
			}
			if del := record(t, invoke(t, "delete", id, 200)); del["status"] != tt.deleted {
				t.Errorf("delete left status %v; want %s", del["status"], tt.deleted)
			}
			if missing := invoke(t, "get", "0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b", 404); missing.Error == nil || missing.Error.Code != "NOT_FOUND" {
				t.Errorf("unknown id: %+v", missing)
			}
		})
	}
}
