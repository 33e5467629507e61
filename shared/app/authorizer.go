package app

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/authorizer"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
)

// AuthorizerHandler handles API Gateway REST API REQUEST authorizer events.
type AuthorizerHandler func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// Authorizer returns the REQUEST authorizer of the API (see package authorizer), authenticating
// against the accounts table (ACCOUNTS_TABLE), the same store and code as the API handler. It fails
// when c lacks what AuthorizerFunction needs.
func Authorizer(cfg aws.Config, c Config, logger *slog.Logger) (AuthorizerHandler, error) {
	if err := c.Require(AuthorizerFunction); err != nil {
		return nil, err
	}
	h := authorizer.Handler{Keys: accountdb.NewAccounts(storecore.New(cfg, c.Tables)), Logger: logger}
	return h.Handle, nil
}

// LambdaAuthorizer builds, once per cold start, the handler of the authorizer Lambda function. It
// refuses the local-only knobs (RefuseLocalKnobs).
func LambdaAuthorizer(ctx context.Context, logger *slog.Logger) (AuthorizerHandler, error) {
	return LambdaBuild(ctx, logger, Authorizer, AuthorizerFunction)
}
