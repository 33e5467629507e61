package sqsqueue

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// Concurrency bounds the messages one invocation of a Handler works on at once. The deliverer
// function's timeout (template.yaml) allows for ten attempts of at most 5 s in flight.
const Concurrency = 10

// TaskDeliverer makes the attempts delivery tasks describe (or sends them on towards later ones)
// and returns the outcome of each. webhook.Deliverer implements it.
type TaskDeliverer interface {
	DeliverAll(ctx context.Context, tasks []webhook.Task) []error
}

// Handler returns the handler of the delivery queue's SQS events (as Lambda delivers them): each
// message is decoded (Decode) and the tasks are given to d together, at most Concurrency at once
// (d sorts them by webhook). A task without a claim token gets its message id as one, so that a
// message SQS delivers again claims again what it claimed before. A message that does not decode
// or that d fails on is logged and reported on its own in BatchItemFailures, so SQS redelivers only
// that one; the handler never returns an error, so one bad message never fails the batch.
func Handler(d TaskDeliverer, logger *slog.Logger) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		fail := func(msg events.SQSMessage, task webhook.Task, err error) {
			logger.ErrorContext(ctx, "delivery message failed", slog.String("message_id", msg.MessageId),
				slog.String("event_id", task.EventID), slog.String("webhook_id", task.WebhookID),
				slog.Int("attempt", task.Attempt), slog.String("error", err.Error()))
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
		}
		for start := 0; start < len(ev.Records); start += Concurrency {
			var (
				tasks []webhook.Task
				msgs  []events.SQSMessage
			)
			for _, msg := range ev.Records[start:min(start+Concurrency, len(ev.Records))] {
				task, err := Decode(msg.Body)
				if err != nil {
					fail(msg, task, err)
					continue
				}
				if task.Token == "" {
					task.Token = msg.MessageId
				}
				tasks, msgs = append(tasks, task), append(msgs, msg)
			}
			if len(tasks) == 0 {
				continue
			}
			for i, err := range d.DeliverAll(ctx, tasks) {
				if err != nil {
					fail(msgs[i], tasks[i], err)
				}
			}
		}
		return resp, nil
	}
}
