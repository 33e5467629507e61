// Package authorizer is the API Gateway adapter of authentication: a Lambda REQUEST authorizer for
// the REST API that authenticates the Bearer key with patio.Authenticate, the very code the API
// handlers run, on the same store.
//
// API Gateway caches an authorizer's answer per Authorization header value (template.yaml sets the
// TTL). That cache cannot keep a revoked key or an old plan working: the handlers authenticate every
// request again, with strongly consistent reads of the key and the team, and count it against the
// team's current plan. The authorizer is the edge's coarse gate, so that
// requests without a valid key never reach a function and API Gateway can meter each team against
// its usage plan; docs/edge.md has the whole picture.
package authorizer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/patio"
)

// ErrUnauthorized is what the authorizer returns for a missing, malformed, unknown or revoked key.
// API Gateway recognises exactly this message and answers 401 through the UNAUTHORIZED gateway
// response; any other error becomes a 500 AUTHORIZER_FAILURE. Hence the capital letter.
var ErrUnauthorized = errors.New("Unauthorized")

// errInternal is all API Gateway learns of a failure that is not the client's (the store did not
// answer, a methodArn that cannot be read): it answers 500 through AUTHORIZER_FAILURE, and the cause
// is logged here.
var errInternal = errors.New("authorizer: internal error")

// Context keys the authorizer passes to the integration (requestContext.authorizer).
const (
	ContextTeamID = "team_id"
	// ContextPlan is the team's plan when the key was authenticated: the API handlers count a read
	// against it while they read the team (and count again when the plan changed since).
	ContextPlan  = "plan"
	ContextKeyID = "key_id"
)

// Handler authenticates API Gateway REQUEST authorizer events.
type Handler struct {
	// Keys finds keys and teams, as for the API handlers.
	Keys patio.KeyStore
	// Logger receives one line per internal failure and per team without an API Gateway key;
	// slog.Default() when nil. API keys are never logged.
	Logger *slog.Logger
}

// Handle answers one REQUEST authorizer event. For a valid key it returns an Allow policy on every
// method and path of the event's API and stage (so API Gateway's cached answer serves all routes),
// the key id as principalId, the team and key ids and the team's plan as context, and the team's API Gateway key as
// usageIdentifierKey (empty when the team has none; API Gateway then refuses the request with
// INVALID_API_KEY, since every method requires a key). For a missing, malformed, unknown or revoked
// key it returns ErrUnauthorized, never a Deny policy, so the client gets 401 and not 403. Any other
// failure is logged and returned as a generic error (500 AUTHORIZER_FAILURE).
func (h Handler) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	log := h.Logger
	if log == nil {
		log = slog.Default()
	}
	requestID := req.RequestContext.RequestID
	header, ok := authorization(req)
	if !ok {
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	p, err := patio.Authenticate(ctx, h.Keys, header)
	if patio.IsKind(err, patio.KindUnauthenticated) {
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	if err != nil {
		log.ErrorContext(ctx, "authenticate", slog.String("request_id", requestID), slog.String("error", err.Error()))
		return events.APIGatewayCustomAuthorizerResponse{}, errInternal
	}
	resource, err := AllRoutes(req.MethodArn)
	if err != nil {
		log.ErrorContext(ctx, "authorize", slog.String("request_id", requestID), slog.String("error", err.Error()))
		return events.APIGatewayCustomAuthorizerResponse{}, errInternal
	}
	if p.Team.GatewayKey == "" {
		log.WarnContext(ctx, "team has no API Gateway key; run `admin teams set-plan` with --usage-plans",
			slog.String("request_id", requestID), slog.String("team_id", p.Team.ID))
	}
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: p.Key.ID,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action:   []string{"execute-api:Invoke"},
				Effect:   "Allow",
				Resource: []string{resource},
			}},
		},
		Context:            map[string]any{ContextTeamID: p.Team.ID, ContextPlan: string(p.Team.Plan), ContextKeyID: p.Key.ID},
		UsageIdentifierKey: p.Team.GatewayKey,
	}, nil
}

// authorization returns the request's Authorization header. Header names are matched without
// regard to case (HTTP/2 clients send them in lower case). A request carrying the header more than
// once is refused (ok false) rather than guessing which one the handlers would read.
func authorization(req events.APIGatewayCustomAuthorizerRequestTypeRequest) (string, bool) {
	var values []string
	for name, vs := range req.MultiValueHeaders {
		if strings.EqualFold(name, "Authorization") {
			values = append(values, vs...)
		}
	}
	if len(values) > 1 {
		return "", false
	}
	if len(values) == 1 {
		return values[0], true
	}
	for name, v := range req.Headers {
		if strings.EqualFold(name, "Authorization") {
			return v, true
		}
	}
	return "", false
}

// AllRoutes returns the execute-api ARN that covers every method and path of the API and stage a
// methodArn names: arn:aws:execute-api:<region>:<account>:<api id>/<stage>/*/* for
// arn:aws:execute-api:<region>:<account>:<api id>/<stage>/<METHOD>/<path>. It fails when methodArn
// is not such an ARN.
func AllRoutes(methodArn string) (string, error) {
	parts := strings.SplitN(methodArn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "execute-api" {
		return "", fmt.Errorf("authorizer: methodArn %q is not an execute-api ARN", methodArn)
	}
	apiID, rest, _ := strings.Cut(parts[5], "/")
	stage, _, _ := strings.Cut(rest, "/")
	if apiID == "" || stage == "" {
		return "", fmt.Errorf("authorizer: methodArn %q names no API and stage", methodArn)
	}
	return strings.Join(parts[:5], ":") + ":" + apiID + "/" + stage + "/*/*", nil
}
