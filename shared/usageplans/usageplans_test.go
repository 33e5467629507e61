package usageplans_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/usageplans"
)

// createUsagePlans creates one usage plan per plan in moto, as template.yaml does on AWS.
func createUsagePlans(t *testing.T, cfg aws.Config) usageplans.IDs {
	t.Helper()
	api := apigateway.NewFromConfig(cfg)
	ids := usageplans.IDs{}
	for _, p := range patio.Plans {
		out, err := api.CreateUsagePlan(context.Background(), &apigateway.CreateUsagePlanInput{
			Name: aws.String("test-" + string(p) + "-" + uuid.NewString()),
		})
		if err != nil {
			t.Fatalf("CreateUsagePlan(%s): %v", p, err)
		}
		ids[p] = aws.ToString(out.Id)
	}
	return ids
}

func TestGatewayCreateMoveDelete(t *testing.T) {
	cfg := testenv.APIGateway(t)
	ctx := context.Background()
	g, err := usageplans.New(cfg, createUsagePlans(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	team, err := patio.NewTeam("Edge", "ops@example.com", "starter")
	if err != nil {
		t.Fatal(err)
	}
	id, value, err := g.Create(ctx, team)
	if err != nil {
		t.Fatalf("Create = %v", err)
	}
	if id == "" || len(value) < 20 || len(value) > 128 {
		t.Fatalf("Create = %q, %q; want an id and a value of 20 to 128 characters", id, value)
	}
	key, err := apigateway.NewFromConfig(cfg).GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: aws.String(id), IncludeValue: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetApiKey: %v", err)
	}
	if aws.ToString(key.Value) != value || !key.Enabled {
		t.Errorf("GetApiKey = value %q, enabled %v; want %q, enabled", aws.ToString(key.Value), key.Enabled, value)
	}
	_, other, err := g.Create(ctx, team)
	if err != nil {
		t.Fatalf("second Create = %v", err)
	}
	if other == value {
		t.Errorf("two keys share the value %q; want random values", value)
	}

	steps := []struct {
		name string
		move patio.Plan // "" checks the state Create left
		want []patio.Plan
	}{
		{name: "created on its plan", want: []patio.Plan{patio.PlanStarter}},
		{name: "upgrade", move: patio.PlanProfessional, want: []patio.Plan{patio.PlanProfessional}},
		{name: "same plan again", move: patio.PlanProfessional, want: []patio.Plan{patio.PlanProfessional}},
		{name: "to autoshopping", move: patio.PlanAutoshopping, want: []patio.Plan{patio.PlanAutoshopping}},
		{name: "downgrade", move: patio.PlanStarter, want: []patio.Plan{patio.PlanStarter}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.move != "" {
				if err := g.Move(ctx, id, st.move); err != nil {
					t.Fatalf("Move(%s) = %v", st.move, err)
				}
			}
			got, err := g.Plans(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, st.want) {
				t.Errorf("Plans = %v; want %v", got, st.want)
			}
		})
	}

	if err := g.Delete(ctx, id); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	_, err = apigateway.NewFromConfig(cfg).GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: aws.String(id)})
	var nf *types.NotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("GetApiKey after Delete = %v; want NotFoundException", err)
	}
	if err := g.Delete(ctx, id); err != nil {
		t.Errorf("Delete of a deleted key = %v; want nil", err)
	}
}

func TestGatewayRefusesIncompletePlans(t *testing.T) {
	cfg := testenv.APIGateway(t)
	if _, err := usageplans.New(cfg, usageplans.IDs{patio.PlanStarter: "a", patio.PlanProfessional: "b"}); err == nil {
		t.Errorf("New without an autoshopping usage plan = nil; want an error")
	}
	g, err := usageplans.New(cfg, createUsagePlans(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Create(context.Background(), patio.Team{ID: "t", Plan: "gold"}); err == nil {
		t.Errorf("Create for plan gold = nil; want an error")
	}
	if err := g.Move(context.Background(), "k", "gold"); err == nil {
		t.Errorf("Move to plan gold = nil; want an error")
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		wantOK bool
		err    bool
	}{
		{name: "none", env: map[string]string{}},
		{name: "some", env: map[string]string{"USAGE_PLAN_STARTER": "s1"}, err: true},
		{name: "all", env: map[string]string{"USAGE_PLAN_STARTER": "s1", "USAGE_PLAN_PROFESSIONAL": "p1", "USAGE_PLAN_AUTOSHOPPING": "a1"}, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range patio.Plans {
				t.Setenv(usageplans.EnvVar(p), tt.env[usageplans.EnvVar(p)])
			}
			ids, ok, err := usageplans.FromEnv()
			if (err != nil) != tt.err || ok != tt.wantOK {
				t.Fatalf("FromEnv() = %v, %v, %v; want ok %v, error %v", ids, ok, err, tt.wantOK, tt.err)
			}
			for _, p := range patio.Plans {
				if ok && ids[p] != tt.env[usageplans.EnvVar(p)] {
					t.Errorf("FromEnv()[%s] = %q; want %q", p, ids[p], tt.env[usageplans.EnvVar(p)])
				}
			}
		})
	}
}

// TestFromStack reads the ids from a stack's outputs, in moto's CloudFormation.
func TestFromStack(t *testing.T) {
	testenv.APIGateway(t)
	t.Setenv("AWS_ENDPOINT_URL_CLOUDFORMATION", os.Getenv("AWS_ENDPOINT_URL_API_GATEWAY"))
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := usageplans.IDs{patio.PlanStarter: "s1a2b3", patio.PlanProfessional: "p4c5d6", patio.PlanAutoshopping: "a7e8f9"}
	body := `{"Resources": {"Handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"}}, "Outputs": {`
	for i, p := range patio.Plans {
		if i > 0 {
			body += ","
		}
		body += `"` + usageplans.OutputKey(p) + `": {"Value": "` + want[p] + `"}`
	}
	body += `}}`
	stack := "patio-edge-" + uuid.NewString()[:8]
	if _, err := cloudformation.NewFromConfig(cfg).CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName: aws.String(stack), TemplateBody: aws.String(body)}); err != nil {
		t.Fatalf("CreateStack: %v", err)
	}
	got, err := usageplans.FromStack(ctx, cfg, stack)
	if err != nil {
		t.Fatalf("FromStack = %v", err)
	}
	for _, p := range patio.Plans {
		if got[p] != want[p] {
			t.Errorf("FromStack()[%s] = %q; want %q", p, got[p], want[p])
		}
	}
	if _, err := usageplans.FromStack(ctx, cfg, "no-such-stack"); err == nil {
		t.Errorf("FromStack(no-such-stack) = nil; want an error")
	}
}

// TestPublishKeyCount counts the account's keys (moto's, shared by the tests: at least the two
// created here) and publishes the count as ApiKeys in the namespace. moto does not speak the CBOR
// protocol the CloudWatch client uses, so a stand-in server receives PutMetricData.
func TestPublishKeyCount(t *testing.T) {
	cfg := testenv.APIGateway(t)
	var mu sync.Mutex
	var calls []string
	cw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.URL.Path+" "+string(body))
		mu.Unlock()
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		w.Header().Set("Content-Type", "application/cbor")
		_, _ = w.Write([]byte{0xa0}) // an empty CBOR map
	}))
	defer cw.Close()
	// The global endpoint reaches CloudWatch only: API Gateway keeps its own (moto's).
	cfg.BaseEndpoint = aws.String(cw.URL)
	ctx := context.Background()
	g, err := usageplans.New(cfg, createUsagePlans(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	team, _ := patio.NewTeam("Count", "ops@example.com", "starter")
	for range 2 {
		if _, _, err := g.Create(ctx, team); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := apigateway.NewFromConfig(cfg).GetApiKeys(ctx, &apigateway.GetApiKeysInput{Limit: aws.Int32(500)})
	if err != nil {
		t.Fatal(err)
	}
	const namespace = "Patio/usageplans-test"
	n, err := g.PublishKeyCount(ctx, namespace)
	if err != nil {
		t.Fatalf("PublishKeyCount = %v", err)
	}
	if n < 2 || n < len(keys.Items) {
		t.Errorf("PublishKeyCount = %d; want the account's keys (at least %d)", n, max(2, len(keys.Items)))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || !strings.HasSuffix(strings.Fields(calls[0])[0], "/PutMetricData") ||
		!strings.Contains(calls[0], namespace) || !strings.Contains(calls[0], usageplans.KeyCountMetric) {
		t.Errorf("CloudWatch calls = %q; want one PutMetricData of %s in %s", calls, usageplans.KeyCountMetric, namespace)
	}
}
