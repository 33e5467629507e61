package sqsqueue

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// Concurrency bounds the messages one invocation of a Handler works on at once (each carries up to
// TasksPerMessage tasks; the deliverer sends at most 4 at once to one webhook).
const Concurrency = 10

// TaskDeliverer makes the attempts delivery tasks describe (or sends them on towards later ones)
// and returns the outcome of each. delivery.Deliverer implements it.
type TaskDeliverer interface {
	DeliverAll(ctx context.Context, tasks []webhook.Task) []error
}

// Handler returns the handler of the delivery queue's SQS events (as Lambda delivers them): each
// message's tasks (Decode) are given to d together with those of the other messages, Concurrency
// messages at a time (d sorts them by webhook). A task without a claim token gets one made of its
// message id, so that a message SQS delivers again claims again what it claimed before. A message
// that does not decode, or one of whose tasks d fails on, is logged and reported on its own in
// BatchItemFailures, so SQS redelivers only that one (its tasks already done are then found done);
// the handler never returns an error, so one bad message never fails the batch.
func Handler(d TaskDeliverer, logger *slog.Logger) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		fail := func(msg events.SQSMessage, task webhook.Task, err error) {
			logger.ErrorContext(ctx, "delivery message failed", slog.String("message_id", msg.MessageId),
				slog.String("event_id", task.EventID), slog.String("webhook_id", task.WebhookID),
				slog.Int("attempt", task.Attempt), slog.String("error", err.Error()))
		}
		for start := 0; start < len(ev.Records); start += Concurrency {
			var (
				tasks []webhook.Task
				from  []int // the message of each task
			)
			msgs := ev.Records[start:min(start+Concurrency, len(ev.Records))]
			failed := make([]bool, len(msgs))
			for m, msg := range msgs {
				ts, err := Decode(msg.Body)
				if err != nil {
					fail(msg, webhook.Task{}, err)
					failed[m] = true
					continue
				}
				for i, t := range ts {
					if t.Token == "" {
						t.Token = msg.MessageId
						if len(ts) > 1 {
							t.Token += "#" + strconv.Itoa(i)
						}
					}
					tasks, from = append(tasks, t), append(from, m)
				}
			}
			if len(tasks) > 0 {
				for i, err := range d.DeliverAll(ctx, tasks) {
					if err != nil {
						fail(msgs[from[i]], tasks[i], err)
						failed[from[i]] = true
					}
				}
			}
			for m, f := range failed {
				if f {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msgs[m].MessageId})
				}
			}
		}
		return resp, nil
	}
}
