// Command dispatcher is the Lambda function on the streams of the vehicles, clients and deals tables:
// it derives the webhook events of each change and queues one delivery per subscribed active
// webhook (recording skipped deliveries for disabled ones). It makes no HTTP requests.
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
	h, err := build(context.Background(), logger)
	if err != nil {
		logger.Error("startup failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(h)
}

func build(ctx context.Context, logger *slog.Logger) (app.StreamHandler, error) {
	if err := app.RefuseLocalKnobs(); err != nil {
		return nil, err
	}
	c, err := app.WebhookConfigFromEnv()
	if err != nil {
		return nil, err
	}
	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	return app.Dispatcher(cfg, logger, c)
}
