package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/sesmail"
	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/webhookhttp"
)

// StreamHandler handles DynamoDB Streams events, reporting partial batch failures.
type StreamHandler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// QueueHandler handles SQS events, reporting partial batch failures.
type QueueHandler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// WebhookConfig is the webhook workers' configuration, from the environment.
type WebhookConfig struct {
	// QueueURL is the delivery queue (DELIVERY_QUEUE_URL).
	QueueURL string
	// AlertSender is the verified SES identity alerts come from (ALERT_SENDER_EMAIL).
	AlertSender string
	// Schedule is WEBHOOK_RETRY_SCHEDULE (six Go durations), SPEC.md's schedule by default.
	Schedule webhook.Schedule
	// Timeout is WEBHOOK_TIMEOUT (default 5s).
	Timeout time.Duration
	// MaxHop is WEBHOOK_MAX_HOP, the longest delay of one queue message (default and at most 15m).
	MaxHop time.Duration
	// AllowPrivate is WEBHOOK_ALLOW_PRIVATE_TARGETS: local stack and tests only.
	AllowPrivate bool
	// CAFile is WEBHOOK_CA_FILE, extra PEM roots: local stack and tests only.
	CAFile string
}

// WebhookConfigFromEnv reads the webhook configuration.
func WebhookConfigFromEnv() (WebhookConfig, error) {
	c := WebhookConfig{
		QueueURL:    os.Getenv("DELIVERY_QUEUE_URL"),
		AlertSender: os.Getenv("ALERT_SENDER_EMAIL"),
		CAFile:      os.Getenv("WEBHOOK_CA_FILE"),
		Timeout:     webhookhttp.DefaultTimeout,
		MaxHop:      sqsqueue.MaxDelay,
	}
	var err error
	if c.Schedule, err = webhook.ParseSchedule(os.Getenv("WEBHOOK_RETRY_SCHEDULE")); err != nil {
		return c, fmt.Errorf("app: WEBHOOK_RETRY_SCHEDULE: %w", err)
	}
	for name, dst := range map[string]*time.Duration{"WEBHOOK_TIMEOUT": &c.Timeout, "WEBHOOK_MAX_HOP": &c.MaxHop} {
		if v := os.Getenv(name); v != "" {
			if *dst, err = time.ParseDuration(v); err != nil || *dst <= 0 {
				return c, fmt.Errorf("app: %s=%q is not a positive Go duration", name, v)
			}
		}
	}
	if v := os.Getenv("WEBHOOK_ALLOW_PRIVATE_TARGETS"); v != "" {
		if c.AllowPrivate, err = strconv.ParseBool(v); err != nil {
			return c, fmt.Errorf("app: WEBHOOK_ALLOW_PRIVATE_TARGETS=%q is not a boolean", v)
		}
	}
	return c, nil
}

// RefuseLocalKnobs fails when an unsafe local-only knob is set (WEBHOOK_ALLOW_PRIVATE_TARGETS,
// WEBHOOK_CA_FILE): the Lambda entry points call it before anything else.
func RefuseLocalKnobs() error {
	for _, name := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE"} {
		if _, set := os.LookupEnv(name); set {
			return fmt.Errorf("app: %s is set; it exists only on the local stack and in tests", name)
		}
	}
	return nil
}

func webhookStore(cfg aws.Config) (*dynamostore.Store, error) {
	tables := dynamostore.TablesFromEnv()
	if tables.Webhooks == "" || tables.Deliveries == "" {
		return nil, errors.New("app: WEBHOOKS_TABLE and DELIVERIES_TABLE must be set")
	}
	return dynamostore.New(cfg, tables), nil
}

// Sender returns the webhook HTTP sender the configuration describes.
func (c WebhookConfig) Sender() (*webhookhttp.Sender, error) {
	o := webhookhttp.Options{Timeout: c.Timeout, AllowPrivate: c.AllowPrivate}
	if c.CAFile != "" {
		pool, err := webhookhttp.LoadCAFile(c.CAFile)
		if err != nil {
			return nil, err
		}
		o.RootCAs = pool
	}
	return webhookhttp.New(o), nil
}

// Dispatcher returns the stream handler of the dispatcher function (dynamostore.StreamHandler):
// every record of the resource tables' streams becomes its events' deliveries (queued, no HTTP). A
// record that fails is reported as the batch's failure (by sequence number) and processing stops
// there: Lambda retries from it, and records already handled are recognised (deterministic ids) and
// not queued twice.
func Dispatcher(cfg aws.Config, logger *slog.Logger, c WebhookConfig) (StreamHandler, error) {
	store, err := webhookStore(cfg)
	if err != nil {
		return nil, err
	}
	if c.QueueURL == "" {
		return nil, errors.New("app: DELIVERY_QUEUE_URL is not set")
	}
	d := webhook.Dispatcher{Store: store, Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop), Logger: logger}
	return dynamostore.StreamHandler(d, logger), nil
}

// Deliverer returns the queue handler of the deliverer function (sqsqueue.Handler): each message is
// one attempt (or a hop of a later one). A message that fails is reported on its own; the batch
// never fails as a whole.
func Deliverer(cfg aws.Config, logger *slog.Logger, c WebhookConfig) (QueueHandler, error) {
	store, err := webhookStore(cfg)
	if err != nil {
		return nil, err
	}
	if c.QueueURL == "" || c.AlertSender == "" {
		return nil, errors.New("app: DELIVERY_QUEUE_URL and ALERT_SENDER_EMAIL must be set")
	}
	if dynamostore.TablesFromEnv().Accounts == "" {
		return nil, errors.New("app: ACCOUNTS_TABLE is not set")
	}
	sender, err := c.Sender()
	if err != nil {
		return nil, err
	}
	d := webhook.Deliverer{
		Store: store, Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop), Sender: sender,
		Mailer: sesmail.New(cfg, c.AlertSender), Teams: store, Schedule: c.Schedule, Logger: logger,
	}
	return sqsqueue.Handler(d, logger), nil
}

// Webhooks returns the operators' webhook use cases on the environment's tables and queue. The
// queue is needed only to replay deliveries.
func Webhooks(cfg aws.Config, c WebhookConfig) (webhook.Webhooks, error) {
	store, err := webhookStore(cfg)
	if err != nil {
		return webhook.Webhooks{}, err
	}
	sender, err := c.Sender()
	if err != nil {
		return webhook.Webhooks{}, err
	}
	w := webhook.Webhooks{Store: store, Targets: sender}
	if c.QueueURL != "" {
		w.Queue = sqsqueue.New(cfg, c.QueueURL, c.MaxHop)
	}
	return w, nil
}

// LambdaDispatcher builds the dispatcher function's handler from the environment. It refuses the
// local-only knobs (RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaDispatcher(ctx context.Context, logger *slog.Logger) (StreamHandler, error) {
	return lambdaWebhooks(ctx, logger, Dispatcher)
}

// LambdaDeliverer builds the deliverer function's handler from the environment. It refuses the
// local-only knobs (RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaDeliverer(ctx context.Context, logger *slog.Logger) (QueueHandler, error) {
	return lambdaWebhooks(ctx, logger, Deliverer)
}

func lambdaWebhooks[H any](ctx context.Context, logger *slog.Logger,
	build func(aws.Config, *slog.Logger, WebhookConfig) (H, error)) (H, error) {
	var zero H
	if err := RefuseLocalKnobs(); err != nil {
		return zero, err
	}
	c, err := WebhookConfigFromEnv()
	if err != nil {
		return zero, err
	}
	cfg, err := LoadAWS(ctx)
	if err != nil {
		return zero, err
	}
	return build(cfg, logger, c)
}
