package authorizer_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/authorizer"
	"github.com/patio-dev/patio/shared/patio"
)

// keys is a hand-written patio.KeyStore (the store itself is tested against DynamoDB Local in
// shared/app); err, when set, is what every lookup fails with.
type keys struct {
	key  patio.APIKey
	team patio.Team
	err  error
}

func (k keys) KeyByHash(_ context.Context, hash string) (patio.APIKey, error) {
	if k.err != nil {
		return patio.APIKey{}, k.err
	}
	if hash != k.key.Hash {
		return patio.APIKey{}, patio.NotFoundf("key not found")
	}
	return k.key, nil
}

func (k keys) Team(_ context.Context, id string) (patio.Team, error) {
	if id != k.team.ID {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	return k.team, nil
}

const methodArn = "arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/GET/api/v1/vehicles/0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"

func TestAllRoutes(t *testing.T) {
	tests := []struct {
		name, arn, want string
	}{
		{name: "item route", arn: methodArn, want: "arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/*/*"},
		{name: "collection", arn: "arn:aws:execute-api:us-east-1:1:api/v2_stage/POST/api/v1/deals", want: "arn:aws:execute-api:us-east-1:1:api/v2_stage/*/*"},
		{name: "other partition", arn: "arn:aws-cn:execute-api:cn-north-1:1:api/prod/GET/", want: "arn:aws-cn:execute-api:cn-north-1:1:api/prod/*/*"},
		{name: "not an ARN", arn: "abc123defg/prod/GET/x"},
		{name: "another service", arn: "arn:aws:lambda:us-east-1:1:function/prod/GET/x"},
		{name: "no stage", arn: "arn:aws:execute-api:us-east-1:1:abc123defg"},
		{name: "empty", arn: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := authorizer.AllRoutes(tt.arn)
			if tt.want == "" {
				if err == nil {
					t.Errorf("AllRoutes(%q) = %q; want an error", tt.arn, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("AllRoutes(%q) = %q, %v; want %q", tt.arn, got, err, tt.want)
			}
		})
	}
}

func TestHandle(t *testing.T) {
	team := patio.Team{ID: "team-1", Plan: patio.PlanStarter, GatewayKey: "gateway-key-value-0123456789"}
	key, secret, err := patio.NewAPIKey(team.ID, "k", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	good := keys{key: key, team: team}

	tests := []struct {
		name    string
		store   keys
		arn     string
		headers map[string]string
		multi   map[string][]string
		want    string // "allow", "unauthorized" or "internal"
	}{
		{name: "valid", store: good, headers: map[string]string{"Authorization": "Bearer " + secret}, want: "allow"},
		{name: "header name in lower case", store: good, headers: map[string]string{"authorization": "Bearer " + secret}, want: "allow"},
		{name: "multi-value headers only", store: good, multi: map[string][]string{"Authorization": {"Bearer " + secret}}, want: "allow"},
		{name: "header twice", store: good, multi: map[string][]string{"Authorization": {"Bearer " + secret, "Bearer " + secret}}, want: "unauthorized"},
		{name: "missing", store: good, headers: map[string]string{"Accept": "application/json"}, want: "unauthorized"},
		{name: "malformed", store: good, headers: map[string]string{"Authorization": "Bearer dk_test_short"}, want: "unauthorized"},
		{name: "unknown", store: keys{team: team}, headers: map[string]string{"Authorization": "Bearer " + secret}, want: "unauthorized"},
		{name: "revoked", store: keys{key: func() patio.APIKey { k := key; k.Status = patio.KeyRevoked; return k }(), team: team},
			headers: map[string]string{"Authorization": "Bearer " + secret}, want: "unauthorized"},
		{name: "store down", store: keys{err: errors.New("dynamodb: connection refused")}, headers: map[string]string{"Authorization": "Bearer " + secret}, want: "internal"},
		{name: "unreadable methodArn", store: good, arn: "nonsense", headers: map[string]string{"Authorization": "Bearer " + secret}, want: "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: "REQUEST", MethodArn: methodArn,
				Headers: tt.headers, MultiValueHeaders: tt.multi}
			if tt.arn != "" {
				req.MethodArn = tt.arn
			}
			res, err := authorizer.Handler{Keys: tt.store, Logger: quiet}.Handle(context.Background(), req)
			switch tt.want {
			case "allow":
				if err != nil || res.PrincipalID != key.ID || res.UsageIdentifierKey != team.GatewayKey ||
					len(res.PolicyDocument.Statement) != 1 || res.PolicyDocument.Statement[0].Effect != "Allow" {
					t.Errorf("Handle = %+v, %v; want an Allow for key %s with the team's gateway key", res, err, key.ID)
				}
			case "unauthorized":
				if !errors.Is(err, authorizer.ErrUnauthorized) || err.Error() != "Unauthorized" {
					t.Errorf("Handle = %+v, %v; want Unauthorized", res, err)
				}
			case "internal":
				if err == nil || errors.Is(err, authorizer.ErrUnauthorized) || err.Error() == "Unauthorized" {
					t.Errorf("Handle = %+v, %v; want an error other than Unauthorized (500, not 401)", res, err)
				}
			}
		})
	}
}
