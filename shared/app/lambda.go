package app

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/patio-dev/patio/shared/authorizer"
	"github.com/patio-dev/patio/shared/emf"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/xray"
)

// APIGatewayHandler handles API Gateway REST API (v1 proxy) events.
type APIGatewayHandler func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// LambdaAPI builds, once per cold start, the API Gateway handler of a Lambda function serving the
// given resources: the same http.Handler as the local stack, behind aws-lambda-go-api-proxy. It
// refuses the local-only knobs (RefuseLocalKnobs) and fails when a variable the resources' functions
// need is not set.
func LambdaAPI(ctx context.Context, logger *slog.Logger, resources ...Resource) (APIGatewayHandler, error) {
	fns, err := apiFunctions(resources)
	if err != nil {
		return nil, err
	}
	return LambdaBuild(ctx, logger, func(cfg aws.Config, c Config, logger *slog.Logger) (APIGatewayHandler, error) {
		h, err := api(cfg, c, logger, authorizerTeam, resources...)
		if err != nil {
			return nil, err
		}
		return httpadapter.New(h).ProxyWithContext, nil
	}, fns...)
}

// authorizerTeam is the team, and its plan, that the API's authorizer put in the request's context
// (functions/authorizer: {team_id, plan, key_id}), which the proxy hands on in the request's
// context; the zero Team when there is none.
func authorizerTeam(r *http.Request) patio.Team {
	rc, ok := core.GetAPIGatewayContextFromContext(r.Context())
	if !ok {
		return patio.Team{}
	}
	id, _ := rc.Authorizer[authorizer.ContextTeamID].(string)
	plan, _ := rc.Authorizer[authorizer.ContextPlan].(string)
	return patio.Team{ID: id, Plan: patio.Plan(plan)}
}

// LambdaBuild is the start of every Lambda function: the local-only knobs refused, its
// configuration read from the process environment with the variables fns need checked, the AWS
// configuration read from the variables Lambda sets (LambdaAWS) with its calls traced (X-Ray,
// when Lambda runs a daemon), then build with a logger whose recognised lines carry embedded
// metrics (emf, when METRICS_NAMESPACE is set).
func LambdaBuild[H any](ctx context.Context, logger *slog.Logger,
	build func(aws.Config, Config, *slog.Logger) (H, error), fns ...Function) (H, error) {
	return lambdaBuild(ctx, logger, func(context.Context) (aws.Config, error) { return LambdaAWS(os.LookupEnv) }, build, fns...)
}

func lambdaBuild[H any](ctx context.Context, logger *slog.Logger, loadAWS func(context.Context) (aws.Config, error),
	build func(aws.Config, Config, *slog.Logger) (H, error), fns ...Function) (H, error) {
	var zero H
	if err := RefuseLocalKnobs(os.LookupEnv); err != nil {
		return zero, err
	}
	c, err := LoadConfig(os.LookupEnv, fns...)
	if err != nil {
		return zero, err
	}
	cfg, err := loadAWS(ctx)
	if err != nil {
		return zero, err
	}
	xray.Instrument(&cfg, c.XRayDaemon)
	return build(cfg, c, slog.New(emf.NewHandler(logger.Handler(), c.MetricsNamespace)))
}
