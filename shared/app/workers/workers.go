// Package workers builds the webhook workers (the dispatcher, deliverer and sweeper functions) and
// the operators' webhook use cases from app.Config. It is apart from package app so that the API
// functions, which build only from app, link neither the queue (SQS), the mailer (SES) nor the
// webhook HTTP sender: smaller binaries, shorter cold starts (shared/archtest keeps it so).
package workers

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/sesmail"
	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/webhookhttp"
)

// StreamHandler handles DynamoDB Streams events, reporting partial batch failures.
type StreamHandler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// QueueHandler handles SQS events, reporting partial batch failures.
type QueueHandler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// Dispatcher returns the stream handler of the dispatcher function (streamHandler):
// every record of the resource tables' streams becomes its events' deliveries (queued, no HTTP). A
// record that fails is reported as the batch's failure (by sequence number) and processing stops
// there: Lambda retries from it, and records already handled are recognised (deterministic ids) and
// not queued twice. It fails when c lacks what DispatcherFunction needs.
func Dispatcher(cfg aws.Config, c app.Config, logger *slog.Logger) (StreamHandler, error) {
	if err := c.Require(app.DispatcherFunction); err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	d := &delivery.Dispatcher{Store: webhookdb.New(store.DB()), Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop), Audit: store, Logger: logger}
	return streamHandler(d, logger), nil
}

// Deliverer returns the queue handler of the deliverer function (sqsqueue.Handler): each message is
// one attempt (or a hop of a later one). A message that fails is reported on its own; the batch
// never fails as a whole. It fails when c lacks what DelivererFunction needs.
func Deliverer(cfg aws.Config, c app.Config, logger *slog.Logger) (QueueHandler, error) {
	if err := c.Require(app.DelivererFunction); err != nil {
		return nil, err
	}
	sender, err := Sender(c)
	if err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	hooks := webhookdb.New(store.DB())
	d := &delivery.Deliverer{
		Deliveries: hooks, Gates: hooks, Rules: hooks, Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop), Sender: sender,
		Mailer: sesmail.New(cfg, c.AlertSender), Teams: accountdb.NewAccounts(store.DB()), Schedule: c.RetrySchedule,
		Timeout: c.WebhookTimeout, SweepAfter: c.SweepAfter, Logger: logger, ConsoleURL: c.ConsoleURL,
	}
	return sqsqueue.Handler(d, logger), nil
}

// SweepHandler handles the sweeper's scheduled events (EventBridge).
type SweepHandler func(context.Context, events.CloudWatchEvent) error

// Sweeper returns the handler of the sweeper function, run every minute: it queues again the
// attempts of pending deliveries more than c.SweepAfter overdue (a lost queue message), and logs
// how many. It fails when c lacks what SweeperFunction needs.
func Sweeper(cfg aws.Config, c app.Config, logger *slog.Logger) (SweepHandler, error) {
	if err := c.Require(app.SweeperFunction); err != nil {
		return nil, err
	}
	s := delivery.Sweeper{Store: webhookdb.New(storecore.New(cfg, c.Tables)), Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop),
		After: c.SweepAfter, Logger: logger}
	return func(ctx context.Context, _ events.CloudWatchEvent) error {
		n, err := s.Sweep(ctx)
		if n > 0 || err != nil {
			logger.InfoContext(ctx, "sweep done", slog.Int("queued_again", n))
		}
		return err
	}, nil
}

// Webhooks returns the operators' webhook use cases on the configured tables and queue. The queue
// is needed only to replay deliveries. It fails when c lacks what AdminTool needs.
func Webhooks(cfg aws.Config, c app.Config) (webhook.Webhooks, error) {
	if err := c.Require(app.AdminTool); err != nil {
		return webhook.Webhooks{}, err
	}
	sender, err := Sender(c)
	if err != nil {
		return webhook.Webhooks{}, err
	}
	hooks := webhookdb.New(storecore.New(cfg, c.Tables))
	w := webhook.Webhooks{Store: hooks, Log: hooks, Targets: sender}
	if c.QueueURL != "" {
		w.Queue = sqsqueue.New(cfg, c.QueueURL, c.MaxHop)
	}
	return w, nil
}

// LambdaDispatcher builds the dispatcher function's handler from the environment. It refuses the
// local-only knobs (app.RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaDispatcher(ctx context.Context, logger *slog.Logger) (StreamHandler, error) {
	return app.LambdaBuild(ctx, logger, Dispatcher, app.DispatcherFunction)
}

// LambdaSweeper builds the sweeper function's handler from the environment. It refuses the
// local-only knobs (app.RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaSweeper(ctx context.Context, logger *slog.Logger) (SweepHandler, error) {
	return app.LambdaBuild(ctx, logger, Sweeper, app.SweeperFunction)
}

// LambdaDeliverer builds the deliverer function's handler from the environment. It refuses the
// local-only knobs (app.RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaDeliverer(ctx context.Context, logger *slog.Logger) (QueueHandler, error) {
	return app.LambdaBuild(ctx, logger, Deliverer, app.DelivererFunction)
}

// Sender returns the webhook HTTP sender c describes (timeout, private targets, extra roots).
func Sender(c app.Config) (*webhookhttp.Sender, error) {
	o := webhookhttp.Options{Timeout: c.WebhookTimeout, AllowPrivate: c.AllowPrivateTargets}
	if c.CAFile != "" {
		pool, err := webhookhttp.LoadCAFile(c.CAFile)
		if err != nil {
			return nil, err
		}
		o.RootCAs = pool
	}
	return webhookhttp.New(o), nil
}
