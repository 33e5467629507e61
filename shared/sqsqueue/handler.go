package sqsqueue

import (
	"context"
	"log/slog"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// Concurrency bounds the messages one invocation of a Handler works on at once. The deliverer
// function's timeout (template.yaml) allows for ten attempts of at most 5 s in flight.
const Concurrency = 10

// TaskDeliverer makes the attempt one delivery task describes (or sends on a hop towards a later
// one). webhook.Deliverer implements it.
type TaskDeliverer interface {
	Deliver(ctx context.Context, t webhook.Task) error
}

// Handler returns the handler of the delivery queue's SQS events (as Lambda delivers them): each
// message is decoded (Decode) and given to d, at most Concurrency at once. A message that does not
// decode or that d fails on is logged and reported on its own in BatchItemFailures, so SQS redelivers
// only that one; the handler never returns an error, so one bad message never fails the batch.
func Handler(d TaskDeliverer, logger *slog.Logger) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var (
			resp events.SQSEventResponse
			mu   sync.Mutex
			wg   sync.WaitGroup
			sem  = make(chan struct{}, Concurrency)
		)
		for _, msg := range ev.Records {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				task, err := Decode(msg.Body)
				if err == nil {
					err = d.Deliver(ctx, task)
				}
				if err != nil {
					logger.ErrorContext(ctx, "delivery message failed", slog.String("message_id", msg.MessageId),
						slog.String("event_id", task.EventID), slog.String("webhook_id", task.WebhookID),
						slog.Int("attempt", task.Attempt), slog.String("error", err.Error()))
					mu.Lock()
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return resp, nil
	}
}
