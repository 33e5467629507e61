package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// loadAuthorizerEvent reads a REQUEST authorizer sample from events/, as API Gateway sends it.
func loadAuthorizerEvent(t *testing.T, name string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	t.Helper()
	e := loadSample[events.APIGatewayCustomAuthorizerRequestTypeRequest](t, name)
	if e.Type != "REQUEST" || e.MethodArn == "" || e.RequestContext.APIID == "" {
		t.Fatalf("%s is not a REQUEST authorizer event: %+v", name, e)
	}
	return e
}

// withAuthorization sets the Authorization header of an authorizer event, as sent under name.
func withAuthorization(e events.APIGatewayCustomAuthorizerRequestTypeRequest, name, value string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	for k := range e.Headers {
		if strings.EqualFold(k, "Authorization") {
			delete(e.Headers, k)
			delete(e.MultiValueHeaders, k)
		}
	}
	e.Headers[name] = value
	e.MultiValueHeaders[name] = []string{value}
	return e
}

// TestAuthorizerSampleEvents feeds events/authorizer-*.json to the authorizer Lambda's handler
// against DynamoDB Local, with the sample key replaced by a real valid or revoked key.
func TestAuthorizerSampleEvents(t *testing.T) {
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	ctx := context.Background()
	store := dynamostore.New(cfg, envConfig(t).Tables)

	team, _ := patio.NewTeam("Edge", "ops@example.com", "starter")
	team.GatewayKeyID, team.GatewayKey = "k7gw3a9x1b", "GatewayKeyValueOfTheTeam0123456789abcdef"
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	bare, _ := patio.NewTeam("No gateway key", "ops@example.com", "starter")
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, bare); err != nil {
		t.Fatal(err)
	}
	newKey := func(teamID string) (patio.APIKey, string) {
		k, secret, _ := patio.NewAPIKey(teamID, "edge", patio.Scopes, patio.TestKeyPrefix)
		if err := accountdb.NewAccounts(store.DB()).CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return k, secret
	}
	valid, validSecret := newKey(team.ID)
	revoked, revokedSecret := newKey(team.ID)
	if _, err := accountdb.NewAccounts(store.DB()).RevokeKey(ctx, revoked.ID); err != nil {
		t.Fatal(err)
	}
	bareKey, bareSecret := newKey(bare.ID)
	unknownSecret, _ := patio.NewKeySecret(patio.TestKeyPrefix)

	h, err := app.LambdaAuthorizer(ctx, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	const allRoutes = "arn:aws:execute-api:us-east-1:123456789012:abc123defg/prod/*/*"

	tests := []struct {
		name   string
		sample string
		header string // "" keeps the sample's Authorization header
		as     string // the header name sent; "Authorization" when empty
		key    patio.APIKey
		team   patio.Team // zero: the answer must be Unauthorized
	}{
		{name: "valid", sample: "authorizer-valid.json", header: "Bearer " + validSecret, key: valid, team: team},
		{name: "valid, lower-case header and scheme (HTTP/2)", sample: "authorizer-valid.json", header: "bearer " + validSecret, as: "authorization", key: valid, team: team},
		{name: "valid, team without a gateway key", sample: "authorizer-valid.json", header: "Bearer " + bareSecret, key: bareKey, team: bare},
		{name: "revoked", sample: "authorizer-revoked.json", header: "Bearer " + revokedSecret},
		{name: "unknown", sample: "authorizer-revoked.json", header: "Bearer " + unknownSecret},
		{name: "missing", sample: "authorizer-missing.json"},
		{name: "malformed", sample: "authorizer-malformed.json"},
		{name: "wrong scheme", sample: "authorizer-valid.json", header: "Basic " + validSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := loadAuthorizerEvent(t, tt.sample)
			if tt.header != "" {
				as := tt.as
				if as == "" {
					as = "Authorization"
				}
				e = withAuthorization(e, as, tt.header)
			}
			res, err := h(ctx, e)
			if tt.team.ID == "" {
				if err == nil || err.Error() != "Unauthorized" {
					t.Fatalf("%s: authorizer = %+v, %v; want the error Unauthorized (API Gateway's 401)", tt.sample, res, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: authorizer error %v", tt.sample, err)
			}
			if res.PrincipalID != tt.key.ID {
				t.Errorf("principalId = %q; want the key id %q", res.PrincipalID, tt.key.ID)
			}
			want := []events.IAMPolicyStatement{{Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{allRoutes}}}
			if res.PolicyDocument.Version != "2012-10-17" || !slices.EqualFunc(res.PolicyDocument.Statement, want, func(a, b events.IAMPolicyStatement) bool {
				return slices.Equal(a.Action, b.Action) && a.Effect == b.Effect && slices.Equal(a.Resource, b.Resource)
			}) {
				t.Errorf("policy = %+v; want version 2012-10-17 and %+v", res.PolicyDocument, want)
			}
			if res.Context["team_id"] != tt.team.ID || res.Context["plan"] != string(tt.team.Plan) || res.Context["key_id"] != tt.key.ID || len(res.Context) != 3 {
				t.Errorf("context = %v; want team_id %s, plan %s and key_id %s", res.Context, tt.team.ID, tt.team.Plan, tt.key.ID)
			}
			if res.UsageIdentifierKey != tt.team.GatewayKey {
				t.Errorf("usageIdentifierKey = %q; want the team's gateway key %q", res.UsageIdentifierKey, tt.team.GatewayKey)
			}
			// What API Gateway reads: the Lambda runtime marshals the response with encoding/json.
			data, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var wire map[string]any
			_ = json.Unmarshal(data, &wire)
			for _, k := range []string{"principalId", "policyDocument", "context"} {
				if _, ok := wire[k]; !ok {
					t.Errorf("response JSON %s lacks %q", data, k)
				}
			}
			if _, ok := wire["usageIdentifierKey"]; ok != (tt.team.GatewayKey != "") {
				t.Errorf("response JSON %s: usageIdentifierKey present %v; want %v", data, ok, tt.team.GatewayKey != "")
			}
		})
	}
}

// TestProxySamplesCarryTheAuthorizer checks that the API samples (events/vehicles-*.json and the
// like) are what API Gateway delivers behind the authorizer: requestContext.authorizer with the
// principal, team and key ids, and the team's gateway key as identity.apiKey.
func TestProxySamplesCarryTheAuthorizer(t *testing.T) {
	var names []string
	for _, r := range []string{"vehicles", "clients", "deals"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "events", r+"-*.json"))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) == 0 {
		t.Fatal("no events/<resource>-*.json samples found")
	}
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			e := loadEvent(t, name)
			a := e.RequestContext.Authorizer
			if a == nil {
				t.Fatalf("%s has no requestContext.authorizer", name)
			}
			for _, k := range []string{"principalId", "team_id", "plan", "key_id"} {
				if s, _ := a[k].(string); s == "" {
					t.Errorf("%s: requestContext.authorizer.%s = %v; want a string", name, k, a[k])
				}
			}
			if a["principalId"] != a["key_id"] {
				t.Errorf("%s: principalId %v and key_id %v differ; the authorizer sets both to the key id", name, a["principalId"], a["key_id"])
			}
			if _, ok := a["integrationLatency"].(float64); !ok {
				t.Errorf("%s: requestContext.authorizer.integrationLatency = %v; want a number", name, a["integrationLatency"])
			}
			if e.RequestContext.Identity.APIKey == "" || e.RequestContext.Identity.APIKeyID == "" {
				t.Errorf("%s: identity.apiKey/apiKeyId empty; behind the authorizer they are the team's gateway key", name)
			}
		})
	}
}
