package app

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// APIGatewayHandler handles API Gateway REST API (v1 proxy) events.
type APIGatewayHandler func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// LambdaAPI builds, once per cold start, the API Gateway handler of a Lambda function serving the
// given resources: the same http.Handler as the local stack, behind aws-lambda-go-api-proxy.
func LambdaAPI(ctx context.Context, logger *slog.Logger, resources ...Resource) (APIGatewayHandler, error) {
	cfg, err := LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	h, err := API(cfg, logger, resources...)
	if err != nil {
		return nil, err
	}
	return httpadapter.New(h).ProxyWithContext, nil
}
