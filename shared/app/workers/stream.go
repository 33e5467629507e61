package workers

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/webhook"
)

// ChangeDispatcher turns a batch of changes of the resource tables into their webhook deliveries,
// in order, and returns how many it is done with (see delivery.Dispatcher.Dispatch, which
// implements it).
type ChangeDispatcher interface {
	Dispatch(ctx context.Context, changes []webhook.Change) (int, error)
}

// streamHandler returns the handler of the resource tables' DynamoDB Streams events (as Lambda
// delivers them): each INSERT or MODIFY record of a vehicle, client or deal becomes a
// webhook.Change, and the batch's changes are given to d together, in order; other records
// (removals, uniqueness guards) are skipped.
//
// A record that fails (an image that does not decode, or d failing on its change) is logged and
// reported as the batch's only failure by its sequence number: Lambda retries the batch from that
// record, so later records of the shard are never handled before it. The handler never returns an
// error, so one bad record never fails the whole batch.
func streamHandler(d ChangeDispatcher, logger *slog.Logger) StreamHandler {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var (
			resp    events.DynamoDBEventResponse
			changes []webhook.Change
			from    []int // the record of each change
			failed  = -1  // the record that failed, if one did
			err     error
		)
		for i, rec := range ev.Records {
			c, ok, cerr := dynamostore.StreamChange(rec)
			if cerr != nil {
				failed, err = i, cerr
				break
			}
			if ok {
				changes, from = append(changes, c), append(from, i)
			}
		}
		if len(changes) > 0 {
			if n, derr := d.Dispatch(ctx, changes); derr != nil {
				failed, err = from[n], derr
			}
		}
		if failed >= 0 {
			rec := ev.Records[failed]
			logger.ErrorContext(ctx, "stream record failed", slog.String("stream_event_id", rec.EventID),
				slog.String("sequence_number", rec.Change.SequenceNumber), slog.String("error", err.Error()))
			resp.BatchItemFailures = append(resp.BatchItemFailures,
				events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
		}
		return resp, nil
	}
}
