package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/usageplans"
)

// admin runs the tool with args (plus --json) and decodes the one JSON object it prints. It fails
// the test when the command's success differs from ok.
func admin(t *testing.T, ok bool, args ...string) map[string]any {
	t.Helper()
	var out bytes.Buffer
	root, _ := newRoot(&out)
	root.SetArgs(append(args, "--json"))
	err := root.ExecuteContext(context.Background())
	if (err == nil) != ok {
		t.Fatalf("admin %s = %v (%s); want success %v", strings.Join(args, " "), err, out.String(), ok)
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("admin %s printed %q, not one JSON object: %v", strings.Join(args, " "), out.String(), err)
	}
	return v
}

// TestTeamsOnTheEdge runs teams create and teams set-plan against DynamoDB Local and moto's API
// Gateway, with the usage plans in USAGE_PLAN_*, as an operator does against AWS.
func TestTeamsOnTheEdge(t *testing.T) {
	testenv.Tables(t) // sets ACCOUNTS_TABLE: the tool then treats the target as AWS
	cfg := testenv.APIGateway(t)
	ctx := context.Background()
	api := apigateway.NewFromConfig(cfg)
	ids := usageplans.IDs{}
	for _, p := range patio.Plans {
		out, err := api.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("admin-" + string(p) + "-" + uuid.NewString())})
		if err != nil {
			t.Fatal(err)
		}
		ids[p] = aws.ToString(out.Id)
		t.Setenv(usageplans.EnvVar(p), ids[p])
	}
	gw, err := usageplans.New(cfg, ids)
	if err != nil {
		t.Fatal(err)
	}
	store := dynamostore.New(cfg, envTables(t))
	// CloudWatch, where the tool publishes the key count after each new key: moto does not speak
	// the client's CBOR protocol, so a stand-in counts the PutMetricData calls.
	var published atomic.Int32
	cw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/PutMetricData") && bytes.Contains(body, []byte(usageplans.KeyCountMetric)) {
			published.Add(1)
		}
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		_, _ = w.Write([]byte{0xa0})
	}))
	defer cw.Close()
	t.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", cw.URL)

	// checkKey checks that the team's stored key is the API Gateway key and sits in plan's usage plan.
	checkKey := func(t *testing.T, teamID string, plan patio.Plan) {
		t.Helper()
		team, err := accountdb.NewAccounts(store.DB()).Team(ctx, teamID)
		if err != nil {
			t.Fatal(err)
		}
		if team.Plan != plan || team.GatewayKeyID == "" || team.GatewayKey == "" {
			t.Fatalf("Team(%s) = plan %s, gateway key %q/%q; want plan %s and a gateway key", teamID, team.Plan, team.GatewayKeyID, team.GatewayKey, plan)
		}
		key, err := api.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: aws.String(team.GatewayKeyID), IncludeValue: aws.Bool(true)})
		if err != nil {
			t.Fatalf("GetApiKey(%s): %v", team.GatewayKeyID, err)
		}
		if aws.ToString(key.Value) != team.GatewayKey || !key.Enabled {
			t.Errorf("API Gateway key %s: value matches %v, enabled %v; want the stored value, enabled", team.GatewayKeyID, aws.ToString(key.Value) == team.GatewayKey, key.Enabled)
		}
		in, err := gw.Plans(ctx, team.GatewayKeyID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(in, []patio.Plan{plan}) {
			t.Errorf("key %s is in the usage plans of %v; want [%s]", team.GatewayKeyID, in, plan)
		}
	}

	t.Run("create then change plans", func(t *testing.T) {
		created := admin(t, true, "teams", "create", "--name", "Edge", "--email", "ops@example.com", "--plan", "starter")
		id, _ := created["id"].(string)
		if created["gateway_key_id"] == nil {
			t.Errorf("teams create printed %v; want its gateway_key_id", created)
		}
		if _, ok := created["gateway_key"]; ok {
			t.Errorf("teams create printed the gateway key's value: %v", created)
		}
		checkKey(t, id, patio.PlanStarter)
		if published.Load() != 1 {
			t.Errorf("key count published %d times after teams create; want once", published.Load())
		}
		for _, p := range []patio.Plan{patio.PlanProfessional, patio.PlanAutoshopping, patio.PlanAutoshopping, patio.PlanStarter} {
			if got := admin(t, true, "teams", "set-plan", "--team", id, "--plan", string(p)); got["plan"] != string(p) {
				t.Errorf("teams set-plan --plan %s printed %v", p, got)
			}
			checkKey(t, id, p)
		}
	})

	t.Run("a team created without usage plans gets its key on set-plan", func(t *testing.T) {
		created := admin(t, true, "teams", "create", "--name", "Legacy", "--email", "ops@example.com", "--usage-plans", "none")
		id, _ := created["id"].(string)
		if team, err := accountdb.NewAccounts(store.DB()).Team(ctx, id); err != nil || team.GatewayKeyID != "" {
			t.Fatalf("Team(%s) = %+v, %v; want no gateway key with --usage-plans none", id, team, err)
		}
		admin(t, true, "teams", "set-plan", "--team", id, "--plan", "professional", "--usage-plans", "env")
		checkKey(t, id, patio.PlanProfessional)
	})

	t.Run("bad --usage-plans", func(t *testing.T) {
		for _, v := range []string{"ssm", "stack:"} {
			if got := admin(t, false, "teams", "get", "--team", "x", "--usage-plans", v); got["error"] == nil {
				t.Errorf("--usage-plans %s printed %v; want an error", v, got)
			}
		}
	})
}
