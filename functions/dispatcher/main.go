// Command dispatcher is the Lambda function on the streams of the vehicles, clients and deals tables:
// it derives the webhook events of each change and queues one delivery per subscribed active
// webhook (recording skipped deliveries for disabled ones). It makes no HTTP requests.
package main

import (
	"context"
	"log/slog"

	"github.com/patio-dev/patio/shared/app"
)

func main() { app.Start(build) }

// build refuses the local-only knobs, then wires the handler from the environment.
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
