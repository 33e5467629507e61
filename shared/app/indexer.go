package app

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore"
)

// StreamIndexer keeps, from a batch of the resource tables' stream records, what their writes
// leave to the stream: q's word items, the facets' copies and counts it keeps
// (dynamostore.Indexer.Index implements it).
type StreamIndexer interface {
	Index(ctx context.Context, recs []events.DynamoDBEventRecord) error
}

// IndexHandler handles the indexer function's DynamoDB Streams events, reporting a failed batch
// by its first record.
type IndexHandler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// Indexer returns the stream handler of the indexer function (indexHandler): the word items q
// reads, and the facets the indexer keeps, follow each change of a vehicle, client or deal. It is built here, not with the webhook
// workers, so that the function links the store alone. It fails when c lacks what
// IndexerFunction needs.
func Indexer(cfg aws.Config, c Config, logger *slog.Logger) (IndexHandler, error) {
	if err := c.Require(IndexerFunction); err != nil {
		return nil, err
	}
	return indexHandler(dynamostore.IndexerOf(dynamostore.New(cfg, c.Tables)), logger), nil
}

// LambdaIndexer builds the indexer function's handler from the environment. It refuses the
// local-only knobs (RefuseLocalKnobs), so a Lambda never runs with them.
func LambdaIndexer(ctx context.Context, logger *slog.Logger) (IndexHandler, error) {
	return LambdaBuild(ctx, logger, Indexer, IndexerFunction)
}

// indexHandler returns the handler of the indexer's stream events: the batch's items are
// written together (x.Index). When that fails, the failure is logged and the batch's first
// record reported as failed, so Lambda hands the whole batch over again: its writes say what each
// item must be, so those already made are made again harmlessly. The handler never returns an
// error.
func indexHandler(x StreamIndexer, logger *slog.Logger) IndexHandler {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var resp events.DynamoDBEventResponse
		if len(ev.Records) == 0 {
			return resp, nil
		}
		if err := x.Index(ctx, ev.Records); err != nil {
			first := ev.Records[0]
			logger.ErrorContext(ctx, "stream batch not indexed", slog.Int("records", len(ev.Records)),
				slog.String("sequence_number", first.Change.SequenceNumber), slog.String("error", err.Error()))
			resp.BatchItemFailures = append(resp.BatchItemFailures,
				events.DynamoDBBatchItemFailure{ItemIdentifier: first.Change.SequenceNumber})
		}
		return resp, nil
	}
}
