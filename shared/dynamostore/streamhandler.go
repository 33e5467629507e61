package dynamostore

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// ChangeDispatcher turns one change of a resource table into its webhook deliveries.
// webhook.Dispatcher implements it.
type ChangeDispatcher interface {
	Dispatch(ctx context.Context, c webhook.Change) error
}

// StreamHandler returns the handler of the resource tables' DynamoDB Streams events (as Lambda
// delivers them): each INSERT or MODIFY record of a vehicle, client or deal becomes a webhook.Change
// given to d, in order; other records (removals, uniqueness guards) are skipped.
//
// A record that fails (an image that does not decode, or d failing) is logged, reported as the
// batch's only failure by its sequence number, and processing stops there: Lambda retries the batch
// from that record, so later records of the shard are never handled before it. The handler never
// returns an error, so one bad record never fails the whole batch.
func StreamHandler(d ChangeDispatcher, logger *slog.Logger) func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var resp events.DynamoDBEventResponse
		for _, rec := range ev.Records {
			if err := dispatchRecord(ctx, d, rec); err != nil {
				logger.ErrorContext(ctx, "stream record failed", slog.String("stream_event_id", rec.EventID),
					slog.String("sequence_number", rec.Change.SequenceNumber), slog.String("error", err.Error()))
				resp.BatchItemFailures = append(resp.BatchItemFailures,
					events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
				break
			}
		}
		return resp, nil
	}
}

// dispatchRecord gives d the change of one stream record, when it is the insert or modification
// of a record.
func dispatchRecord(ctx context.Context, d ChangeDispatcher, rec events.DynamoDBEventRecord) error {
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) && rec.EventName != string(events.DynamoDBOperationTypeModify) {
		return nil
	}
	resource, newRec, teamID, ok, err := DecodeStreamImage(rec.Change.NewImage)
	if err != nil || !ok {
		return err
	}
	c := webhook.Change{SourceID: rec.EventID, Resource: resource, TeamID: teamID, New: newRec,
		At: rec.Change.ApproximateCreationDateTime.Time}
	if c.At.IsZero() {
		c.At = time.Now()
	}
	if rec.EventName == string(events.DynamoDBOperationTypeModify) {
		_, oldRec, _, ok, err := DecodeStreamImage(rec.Change.OldImage)
		if err != nil {
			return err
		}
		if ok {
			c.Old = oldRec
		}
	}
	return d.Dispatch(ctx, c)
}
