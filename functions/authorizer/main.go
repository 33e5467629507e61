// Command authorizer is the Lambda REQUEST authorizer of the API Gateway REST API: it authenticates
// the Bearer key with the handlers' own code (shared/authorizer) and gives API Gateway the team's
// usage-plan key. Unknown or revoked keys fail as "Unauthorized" (401).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/patio-dev/patio/shared/app"
)

func main() {
	logger := lambdacontext.NewLogger()
	slog.SetDefault(logger)
	h, err := app.LambdaAuthorizer(context.Background(), logger)
	if err != nil {
		logger.Error("startup failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(h)
}
