package dynamostore

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// ChangeDispatcher turns a batch of changes of the resource tables into their webhook deliveries,
// in order, and returns how many it is done with (see delivery.Dispatcher.Dispatch, which
// implements it).
type ChangeDispatcher interface {
	Dispatch(ctx context.Context, changes []webhook.Change) (int, error)
}

// StreamHandler returns the handler of the resource tables' DynamoDB Streams events (as Lambda
// delivers them): each INSERT or MODIFY record of a vehicle, client or deal becomes a
// webhook.Change, and the batch's changes are given to d together, in order; other records
// (removals, uniqueness guards) are skipped.
//
// A record that fails (an image that does not decode, or d failing on its change) is logged and
// reported as the batch's only failure by its sequence number: Lambda retries the batch from that
// record, so later records of the shard are never handled before it. The handler never returns an
// error, so one bad record never fails the whole batch.
func StreamHandler(d ChangeDispatcher, logger *slog.Logger) func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var (
			resp    events.DynamoDBEventResponse
			changes []webhook.Change
			from    []int // the record of each change
			failed  = -1  // the record that failed, if one did
			err     error
		)
		for i, rec := range ev.Records {
			c, ok, cerr := change(rec)
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

// change returns the change of one stream record, ok false when it is not the insert or
// modification of a record.
func change(rec events.DynamoDBEventRecord) (webhook.Change, bool, error) {
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) && rec.EventName != string(events.DynamoDBOperationTypeModify) {
		return webhook.Change{}, false, nil
	}
	// The key says whether the record is a record's own row; anything else (a guard, a list
	// item, a count) is skipped before its image is decoded.
	if !recordKey(rec.Change.Keys) {
		return webhook.Change{}, false, nil
	}
	resource, newRec, teamID, ok, err := DecodeStreamImage(rec.Change.NewImage)
	if err != nil || !ok {
		return webhook.Change{}, false, err
	}
	c := webhook.Change{SourceID: rec.EventID, Resource: resource, TeamID: teamID, New: newRec,
		At: rec.Change.ApproximateCreationDateTime.Time}
	if by, ok := rec.Change.NewImage[byKeyAttr]; ok && by.DataType() == events.DataTypeString {
		c.By = by.String()
	}
	if c.At.IsZero() {
		c.At = time.Now()
	}
	if rec.EventName == string(events.DynamoDBOperationTypeModify) {
		_, oldRec, _, ok, err := DecodeStreamImage(rec.Change.OldImage)
		if err != nil {
			return webhook.Change{}, false, err
		}
		if ok {
			c.Old = oldRec
		}
	}
	return c, true, nil
}
