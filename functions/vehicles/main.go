// Command vehicles is the Lambda function behind /api/v1/vehicles: the shared API handler, served to
// API Gateway (REST API, v1 proxy events) through aws-lambda-go-api-proxy.
package main

import (
	"context"
	"log/slog"

	"github.com/patio-dev/patio/shared/app"
)

func main() {
	app.Start(func(ctx context.Context, logger *slog.Logger) (app.APIGatewayHandler, error) {
		return app.LambdaAPI(ctx, logger, app.Vehicles)
	})
}
