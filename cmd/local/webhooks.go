package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/sesmail"
)

// localEnv adds the local-only webhook knobs to the stack's environment (and so to
// .data/stack.json, which the operators' tool reads): private targets are allowed, so a developer
// can point a webhook at a receiver on this machine. WEBHOOK_* variables and LOG_LEVEL already set
// in the environment (WEBHOOK_RETRY_SCHEDULE, WEBHOOK_CA_FILE, ...) are passed on as they are,
// over the template's defaults.
func localEnv(st *localaws.Stack) {
	st.Env["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "true"
	for _, k := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_RETRY_SCHEDULE", "WEBHOOK_TIMEOUT", "WEBHOOK_MAX_HOP",
		"WEBHOOK_SWEEP_AFTER", "WEBHOOK_CA_FILE", "LOG_LEVEL"} {
		if v, ok := os.LookupEnv(k); ok {
			st.Env[k] = v
		}
	}
}

// streamCheckpoints keeps how far the dispatcher got in each stream, so that a restart resumes there
// instead of handing every change of the last 24 hours over again.
const streamCheckpoints = ".data/stream-checkpoints.json"

// startWebhooks runs the webhook functions' own handlers as AWS would: the dispatcher on the
// resource tables' streams (DynamoDB Local), the deliverer on the delivery queue (moto), the
// sweeper on a ticker. It verifies
// the alert sender identity in moto's SES first. The pollers stop with ctx.
func startWebhooks(ctx context.Context, cfg aws.Config, c app.Config, logger *slog.Logger, st *localaws.Stack) error {
	if err := sesmail.New(cfg, c.AlertSender).VerifySender(ctx); err != nil {
		return err
	}
	dispatch, err := workers.Dispatcher(cfg, c, logger)
	if err != nil {
		return err
	}
	deliver, err := workers.Deliverer(cfg, c, logger)
	if err != nil {
		return err
	}
	sweep, err := workers.Sweeper(cfg, c, logger)
	if err != nil {
		return err
	}
	var tables []string
	for _, id := range []string{"VehiclesTable", "ClientsTable", "DealsTable", "ActivitiesTable", "FinancialTable"} {
		name, ok := st.Tables[id]
		if !ok {
			return fmt.Errorf("local: template.yaml has no %s", id)
		}
		tables = append(tables, name)
	}
	go func() {
		err := localaws.PollStreams(ctx, cfg, tables, dispatch, logger, localaws.StreamOptions{Checkpoints: streamCheckpoints})
		if err != nil {
			logger.Error("local: stream poller stopped", slog.String("error", err.Error()))
		}
	}()
	go func() {
		if err := localaws.PollQueue(ctx, cfg, c.QueueURL, deliver, logger); err != nil {
			logger.Error("local: queue poller stopped", slog.String("error", err.Error()))
		}
	}()
	timer, err := app.NewTimer(cfg, c, c.TimerPeriod)
	if err != nil {
		return err
	}
	go localaws.RunTimer(ctx, c.TimerPeriod, timer.Tick, logger)
	// The sweep runs every minute on AWS; with a compressed WEBHOOK_SWEEP_AFTER, more often.
	go localaws.Every(ctx, min(time.Minute, c.SweepAfter/2), sweep, logger)
	return nil
}
