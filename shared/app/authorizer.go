package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/authorizer"
	"github.com/patio-dev/patio/shared/dynamostore"
)

// AuthorizerHandler handles API Gateway REST API REQUEST authorizer events.
type AuthorizerHandler func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// Authorizer returns the REQUEST authorizer of the API (see package authorizer), authenticating
// against the accounts table named by ACCOUNTS_TABLE, the same store and code as the API handler.
func Authorizer(cfg aws.Config, logger *slog.Logger) (AuthorizerHandler, error) {
	tables := dynamostore.TablesFromEnv()
	if tables.Accounts == "" {
		return nil, fmt.Errorf("app: ACCOUNTS_TABLE is not set")
	}
	h := authorizer.Handler{Keys: dynamostore.New(cfg, tables), Logger: logger}
	return h.Handle, nil
}

// LambdaAuthorizer builds, once per cold start, the handler of the authorizer Lambda function.
func LambdaAuthorizer(ctx context.Context, logger *slog.Logger) (AuthorizerHandler, error) {
	cfg, err := LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	return Authorizer(cfg, logger)
}
