package localaws

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamReader reads tables' streams on demand, for tests that must see what a stream's function
// did with their writes before they look: each CatchUp hands h every record written since the
// previous one, in order, and returns once the streams hold no more. Where PollStreams plays
// Lambda's event source mapping in the background, a test calls CatchUp between its writes and
// its reads, and waits for exactly the work its writes caused, never for a fixed time.
// DynamoDB Local adds a write's stream record with the write, so a record written before CatchUp
// starts is handed over before it returns. One CatchUp runs at a time; positions are kept in
// memory, so a StreamReader is for one test binary's tables.
type StreamReader struct {
	mu      sync.Mutex
	cfg     aws.Config
	tables  []string
	arns    []string
	last    map[string]string // the last sequence number handed over, by shard
	closed  map[string]bool   // shards read to their end
	streams *dynamodbstreams.Client
}

// NewStreamReader returns a reader of the streams of tables, from their trim horizons.
func NewStreamReader(cfg aws.Config, tables ...string) *StreamReader {
	return &StreamReader{cfg: cfg, tables: tables, last: map[string]string{}, closed: map[string]bool{},
		streams: dynamodbstreams.NewFromConfig(cfg)}
}

// CatchUp hands h, in batches of at most a Lambda batch's size, every record of the streams not
// handed over yet, shard by shard in the order the stream lists them (a parent before its
// children), and returns when each shard has no more. A batch h fails (an error, or a batch item
// failure) fails CatchUp: a test's stream function must not fail on the test's records.
func (r *StreamReader) CatchUp(ctx context.Context, h func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arns == nil {
		db := dynamodb.NewFromConfig(r.cfg)
		for _, table := range r.tables {
			out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
			if err != nil {
				return err
			}
			arn := aws.ToString(out.Table.LatestStreamArn)
			if arn == "" {
				return fmt.Errorf("localaws: table %s has no stream", table)
			}
			r.arns = append(r.arns, arn)
		}
	}
	for _, arn := range r.arns {
		shards, err := describeShards(ctx, r.streams, arn, "")
		if err != nil {
			return err
		}
		for _, sh := range shards {
			id := aws.ToString(sh.ShardId)
			if !r.closed[id] {
				if err := r.readShard(ctx, arn, id, h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readShard hands h the records of one shard after its last position, until a read returns none
// or the shard ends.
func (r *StreamReader) readShard(ctx context.Context, arn, shard string, h func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon}
	if seq := r.last[shard]; seq != "" {
		in.ShardIteratorType, in.SequenceNumber = streamtypes.ShardIteratorTypeAfterSequenceNumber, aws.String(seq)
	}
	it, err := r.streams.GetShardIterator(ctx, in)
	if err != nil {
		return fmt.Errorf("localaws: shard iterator of %s: %w", shard, err)
	}
	iter := it.ShardIterator
	for iter != nil {
		out, err := r.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(streamBatchSize)})
		if err != nil {
			return fmt.Errorf("localaws: records of %s: %w", shard, err)
		}
		if len(out.Records) > 0 {
			recs := make([]events.DynamoDBEventRecord, len(out.Records))
			for i, rec := range out.Records {
				recs[i] = StreamRecord(arn, rec)
			}
			resp, err := h(ctx, events.DynamoDBEvent{Records: recs})
			if err == nil && len(resp.BatchItemFailures) > 0 {
				err = fmt.Errorf("%d records failed, from %s", len(retryFrom(recs, resp)), resp.BatchItemFailures[0].ItemIdentifier)
			}
			if err != nil {
				return fmt.Errorf("localaws: stream handler on %s: %w", shard, err)
			}
			r.last[shard] = recs[len(recs)-1].Change.SequenceNumber
		}
		if out.NextShardIterator == nil {
			r.closed[shard] = true
			return nil
		}
		if len(out.Records) == 0 {
			return nil // caught up
		}
		iter = out.NextShardIterator
	}
	return nil
}
