// Command deliverer is the Lambda function on the webhook delivery queue: each message is one
// signed POST attempt (or a hop towards a later one), recorded in the delivery log, with the next
// attempt queued on failure and the deactivation rule applied after the sixth.
package main

import (
	"context"
	"log/slog"

	"github.com/patio-dev/patio/shared/app"
)

func main() { app.Start(build) }

// build refuses the local-only knobs, then wires the handler from the environment.
func build(ctx context.Context, logger *slog.Logger) (app.QueueHandler, error) {
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
	return app.Deliverer(cfg, logger, c)
}
