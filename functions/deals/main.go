// Command deals is the Lambda function behind /api/v1/deals: the shared API handler, served to
// API Gateway (REST API, v1 proxy events) through aws-lambda-go-api-proxy.
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
	h, err := app.LambdaAPI(context.Background(), logger, app.Deals)
	if err != nil {
		logger.Error("startup failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(h)
}
