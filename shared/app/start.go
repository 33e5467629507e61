package app

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Start is the body of every Lambda function's main: it sets up JSON logging with the Lambda
// request id, builds the handler once per cold start, and serves it. A build error is logged and
// ends the process, so a misconfigured function fails at start rather than per request.
func Start[H any](build func(ctx context.Context, logger *slog.Logger) (H, error)) {
	logger := lambdacontext.NewLogger()
	slog.SetDefault(logger)
	h, err := build(context.Background(), logger)
	if err != nil {
		logger.Error("startup failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(h)
}
