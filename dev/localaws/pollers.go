package localaws

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// pollInterval is how often an idle shard or queue is polled again.
const pollInterval = 200 * time.Millisecond

// streamHandler is a Lambda handler of DynamoDB Streams events with partial batch responses.
type streamHandler = func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// queueHandler is a Lambda handler of SQS events with partial batch responses.
type queueHandler = func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// StreamOptions configures PollStreams.
type StreamOptions struct {
	// Checkpoints is the file that keeps, between runs, how far each shard was handed over (the
	// sequence number of the last record h was done with). A poller resumes after it; a shard it
	// does not know starts at the trim horizon. "" keeps no positions: every run starts at the trim
	// horizon (tests with their own fresh tables).
	Checkpoints string
	// Discover is how often a stream is described again for new shards (default 30 s); a shard that
	// ends is followed by a description at once, so its child is found without waiting.
	Discover time.Duration
	// Timeout is each handler call's deadline, as Lambda gives each invocation its function's
	// timeout (0: none).
	Timeout time.Duration
	// Filters are the event source mappings' filters by table name (none: every record): the
	// records that do not pass are skipped, their positions kept, as Lambda does.
	Filters map[string]Filter
}

// defaultDiscover is how often a stream's shards are listed when nothing else asks for it.
const defaultDiscover = 30 * time.Second

// PollStreams plays Lambda's DynamoDB Streams event source mapping on the local stack: it reads the
// streams of the named tables (every shard, new shards as they appear) and hands each batch to h as
// an events.DynamoDBEvent. A batch item failure is retried from the failed record on, as Lambda
// does. With o.Checkpoints it resumes each shard where the previous run stopped. It describes a
// stream only at start, every o.Discover and when a shard ends, and then only from the last shard
// it knows: DescribeStream is not free on a large DynamoDB Local database. Finding the tables'
// streams is tried again until it succeeds (an engine busy or still starting fails it for a
// while); a table without a stream is an error. It returns when ctx ends.
func PollStreams(ctx context.Context, cfg aws.Config, tables []string, h streamHandler, logger *slog.Logger, o StreamOptions) error {
	if o.Discover <= 0 {
		o.Discover = defaultDiscover
	}
	db := dynamodb.NewFromConfig(cfg)
	streams := dynamodbstreams.NewFromConfig(cfg)
	arns := make([]string, len(tables))
	for i, table := range tables {
		out, err := retrying(ctx, logger, "describe "+table, func() (*dynamodb.DescribeTableOutput, error) {
			return db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		})
		if err != nil {
			return nil // ctx ended
		}
		if arns[i] = aws.ToString(out.Table.LatestStreamArn); arns[i] == "" {
			return fmt.Errorf("localaws: table %s has no stream", table)
		}
	}
	cp, err := loadCheckpoints(o.Checkpoints, arns)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { cp.run(logger) })
	var pollers sync.WaitGroup
	h = withTimeout(h, o.Timeout)
	for i, arn := range arns {
		filter := o.Filters[tables[i]]
		pollers.Go(func() { pollStream(ctx, streams, arn, h, logger, cp, o.Discover, filter) })
	}
	pollers.Wait()
	cp.stop()
	wg.Wait()
	return nil
}

// pollStream follows one stream: it lists its shards (at start, every discover, when a shard ends)
// and polls each shard it has not finished.
func pollStream(ctx context.Context, client *dynamodbstreams.Client, arn string, h streamHandler, logger *slog.Logger,
	cp *checkpoints, discover time.Duration, filter Filter) {
	started := map[string]bool{}
	last := "" // the last shard id listed: later descriptions start after it
	ended := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	full := time.Now() // a complete listing now and then, in case shards are not listed in order
	for {
		from := last
		if time.Since(full) > 10*discover {
			from, full = "", time.Now()
		}
		shards, err := describeShards(ctx, client, arn, from)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			logger.Warn("local stream: describe failed", slog.String("stream", arn), slog.String("error", err.Error()))
		}
		for _, sh := range shards {
			id := aws.ToString(sh.ShardId)
			last = id
			if started[id] || cp.done(arn, id) {
				continue
			}
			started[id] = true
			wg.Go(func() {
				if pollShard(ctx, client, arn, id, h, logger, cp, filter) {
					select {
					case ended <- struct{}{}:
					default:
					}
				}
			})
		}
		select {
		case <-ctx.Done():
			return
		case <-ended:
		case <-time.After(discover):
		}
	}
}

// describeShards lists a stream's shards after the shard id from ("" for all), every page.
func describeShards(ctx context.Context, client *dynamodbstreams.Client, arn, from string) ([]streamtypes.Shard, error) {
	var shards []streamtypes.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	if from != "" {
		in.ExclusiveStartShardId = aws.String(from)
	}
	for {
		out, err := client.DescribeStream(ctx, in)
		if err != nil {
			return shards, err
		}
		shards = append(shards, out.StreamDescription.Shards...)
		next := out.StreamDescription.LastEvaluatedShardId
		if next == nil {
			return shards, nil
		}
		in.ExclusiveStartShardId = next
	}
}

// pollShard hands a shard's records over, from its checkpoint on, until ctx ends (false) or the
// shard is closed and read to its end (true).
func pollShard(ctx context.Context, client *dynamodbstreams.Client, arn, shard string, h streamHandler, logger *slog.Logger,
	cp *checkpoints, filter Filter) bool {
	var iter *string
	lastSeq := cp.position(arn, shard)
	// iterator starts after the last record handed over, or at the trim horizon. DynamoDB Local
	// refuses some iterators of quiet shards (TrimmedDataAccessException); a fresh one then works.
	// A kept position the stream no longer has (trimmed) restarts the shard at its trim horizon.
	iterator := func() *string {
		in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
			ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon}
		if lastSeq != "" {
			in.ShardIteratorType, in.SequenceNumber = streamtypes.ShardIteratorTypeAfterSequenceNumber, aws.String(lastSeq)
		}
		it, err := client.GetShardIterator(ctx, in)
		if err != nil {
			if ctx.Err() == nil {
				logger.Debug("local stream: shard iterator failed", slog.String("shard", shard), slog.String("error", err.Error()))
				var trimmed *streamtypes.TrimmedDataAccessException
				var notFound *streamtypes.ResourceNotFoundException
				if lastSeq != "" && (errors.As(err, &trimmed) || errors.As(err, &notFound)) {
					lastSeq = ""
				}
			}
			return nil
		}
		return it.ShardIterator
	}
	failing := backoff{min: pollInterval, max: maxBackoff}
	for ctx.Err() == nil {
		if iter == nil {
			if iter = iterator(); iter == nil {
				sleep(ctx, failing.next())
				continue
			}
		}
		start := time.Now()
		out, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
		took := time.Since(start)
		if err != nil {
			var trimmed *streamtypes.TrimmedDataAccessException
			var expired *streamtypes.ExpiredIteratorException
			if ctx.Err() == nil && !errors.As(err, &trimmed) && !errors.As(err, &expired) {
				logger.Warn("local stream: get records failed", slog.String("shard", shard), slog.String("error", err.Error()))
			}
			iter = nil
			sleep(ctx, failing.next())
			continue
		}
		failing.reset()
		recs := make([]events.DynamoDBEventRecord, 0, len(out.Records))
		for _, r := range out.Records {
			if rec := StreamRecord(arn, r); filter.Match(rec) {
				recs = append(recs, rec)
			}
		}
		// Lambda hands over at most streamBatchSize records at once (the template's BatchSize).
		for len(recs) > 0 && ctx.Err() == nil {
			batch := recs[:min(len(recs), streamBatchSize)]
			resp, err := h(ctx, events.DynamoDBEvent{Records: batch})
			if err != nil {
				logger.Error("local stream: handler failed; retrying the batch", slog.String("error", err.Error()))
				sleep(ctx, time.Second)
				continue
			}
			rest := retryFrom(batch, resp)
			done := batch[:len(batch)-len(rest)]
			if len(done) > 0 {
				lastSeq = done[len(done)-1].Change.SequenceNumber
				cp.set(arn, shard, lastSeq)
			}
			recs = recs[len(done):]
			if len(rest) > 0 {
				sleep(ctx, time.Second)
			}
		}
		if ctx.Err() != nil {
			return false
		}
		// Filtered-out records after the last one handed over are done with too.
		if n := len(out.Records); n > 0 && len(recs) == 0 {
			lastSeq = aws.ToString(out.Records[n-1].Dynamodb.SequenceNumber)
			cp.set(arn, shard, lastSeq)
		}
		if out.NextShardIterator == nil {
			cp.finish(arn, shard)
			return true // a closed shard, read to its end
		}
		iter = out.NextShardIterator
		if len(out.Records) == 0 {
			// An idle shard is polled no more often than its reads take, so that a slow engine
			// is asked less, not more.
			sleep(ctx, max(pollInterval, took))
		}
	}
	return false
}

// streamBatchSize is the most records one handler call gets, as the template's event sources say.
const streamBatchSize = 1000

// retryFrom returns the records to hand over again after a partial failure: from the earliest
// failed sequence number on (none when nothing failed).
func retryFrom(recs []events.DynamoDBEventRecord, resp events.DynamoDBEventResponse) []events.DynamoDBEventRecord {
	if len(resp.BatchItemFailures) == 0 {
		return nil
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for i, r := range recs {
		if failed[r.Change.SequenceNumber] {
			return recs[i:]
		}
	}
	return nil
}

// retrying calls f until it succeeds or ctx ends (then it returns ctx's error), logging each
// failure and waiting longer after each (backoff, 1 s to maxBackoff): a poller's set-up call (the
// table's stream, the queue's ARN) fails while the engine is overloaded or not yet ready, and the
// poller must start when it can, as Lambda's event source mappings keep trying, never stop for good.
func retrying[R any](ctx context.Context, logger *slog.Logger, what string, f func() (R, error)) (R, error) {
	wait := backoff{min: time.Second, max: maxBackoff}
	for {
		out, err := f()
		if err == nil || ctx.Err() != nil {
			return out, cmp.Or(ctx.Err(), err)
		}
		logger.Warn("local poller: set-up call failed, retrying", slog.String("call", what), slog.String("error", err.Error()))
		sleep(ctx, wait.next())
	}
}

// maxBackoff is the longest a poller waits after failures in a row.
const maxBackoff = 10 * time.Second

// backoff is a poller's wait after failures in a row: from min, doubling up to max.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) next() time.Duration {
	b.cur = min(max(b.cur*2, b.min), b.max)
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }

// withTimeout gives each call of h the deadline d (none when d is 0).
func withTimeout[E, R any](h func(context.Context, E) (R, error), d time.Duration) func(context.Context, E) (R, error) {
	if d <= 0 {
		return h
	}
	return func(ctx context.Context, ev E) (R, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return h(ctx, ev)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// StreamRecord converts a DynamoDB Streams API record into the record Lambda delivers.
func StreamRecord(streamARN string, r streamtypes.Record) events.DynamoDBEventRecord {
	rec := events.DynamoDBEventRecord{
		AWSRegion:      aws.ToString(r.AwsRegion),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    "aws:dynamodb",
		EventVersion:   aws.ToString(r.EventVersion),
		EventSourceArn: streamARN,
	}
	if c := r.Dynamodb; c != nil {
		rec.Change = events.DynamoDBStreamRecord{
			Keys:           image(c.Keys),
			NewImage:       image(c.NewImage),
			OldImage:       image(c.OldImage),
			SequenceNumber: aws.ToString(c.SequenceNumber),
			SizeBytes:      aws.ToInt64(c.SizeBytes),
			StreamViewType: string(c.StreamViewType),
		}
		if c.ApproximateCreationDateTime != nil {
			rec.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *c.ApproximateCreationDateTime}
		}
	}
	return rec
}

func image(m map[string]streamtypes.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = attribute(v)
	}
	return out
}

func attribute(v streamtypes.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *streamtypes.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *streamtypes.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *streamtypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *streamtypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = attribute(e)
		}
		return events.NewListAttribute(l)
	case *streamtypes.AttributeValueMemberM:
		return events.NewMapAttribute(image(v.Value))
	}
	return events.NewNullAttribute()
}

// QueueConcurrency is how many batches the local queue poller hands over at once, as the
// deliverer's event source does on AWS (its ScalingConfig.MaximumConcurrency in template.yaml).
const QueueConcurrency = 20

// queuePollers is how many receives the local queue poller keeps going at once, as Lambda's SQS
// event source polls with several pollers (five to begin with): one receive at a time would let
// the queue's answer time (tens of milliseconds on moto) bound the deliveries per second.
const queuePollers = 5

// PollQueue plays Lambda's SQS event source mapping on the local stack: it long-polls the queue
// with queuePollers receives at once and hands each batch (up to 10 messages) to h as an
// events.SQSEvent, up to QueueConcurrency batches at once, receiving the next while earlier ones
// are being handled (a slow receiver holds only its own batch). After h returns it deletes the
// messages h did not report as failed (those come back after the visibility timeout, and go to
// the dead-letter queue in the end). It returns when ctx ends, once the batches in hand are done.
//
// timeout is each handler call's deadline, as Lambda gives each invocation its function's timeout
// (0: none). Reading the queue's ARN, and a receive that fails, are tried again after a wait that
// doubles up to maxBackoff.
func PollQueue(ctx context.Context, cfg aws.Config, queueURL string, h queueHandler, logger *slog.Logger, timeout time.Duration) error {
	h = withTimeout(h, timeout)
	client := sqs.NewFromConfig(cfg)
	attrs, err := retrying(ctx, logger, "queue "+queueURL, func() (*sqs.GetQueueAttributesOutput, error) {
		return client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(queueURL), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
	})
	if err != nil {
		return nil // ctx ended
	}
	arn := attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	slots := make(chan struct{}, QueueConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	poll := func() {
		failing := backoff{min: time.Second, max: maxBackoff}
		for ctx.Err() == nil {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
				QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
				MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
			})
			if err != nil || len(out.Messages) == 0 {
				<-slots
				if err != nil && ctx.Err() == nil {
					logger.Warn("local queue: receive failed", slog.String("error", err.Error()))
					sleep(ctx, failing.next())
				}
				continue
			}
			failing.reset()
			ev := events.SQSEvent{}
			for _, m := range out.Messages {
				ev.Records = append(ev.Records, events.SQSMessage{
					MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
					Body: aws.ToString(m.Body), Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: m.Attributes,
					EventSource: "aws:sqs", EventSourceARN: arn, AWSRegion: cfg.Region,
				})
			}
			wg.Go(func() {
				defer func() { <-slots }()
				handleBatch(ctx, client, queueURL, ev, h, logger)
			})
		}
	}
	for range queuePollers {
		wg.Go(poll)
	}
	return nil
}

// handleBatch hands one batch to h and deletes the messages it did not report as failed.
func handleBatch(ctx context.Context, client *sqs.Client, queueURL string, ev events.SQSEvent, h queueHandler, logger *slog.Logger) {
	resp, err := h(ctx, ev)
	if err != nil {
		logger.Error("local queue: handler failed; the batch returns after the visibility timeout", slog.String("error", err.Error()))
		return
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range ev.Records {
		if !failed[m.MessageId] {
			entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.ReceiptHandle)})
		}
	}
	if len(entries) == 0 {
		return
	}
	out, err := client.DeleteMessageBatch(context.WithoutCancel(ctx), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: entries})
	if err != nil {
		logger.Warn("local queue: delete failed", slog.Int("messages", len(entries)), slog.String("error", err.Error()))
		return
	}
	for _, f := range out.Failed {
		logger.Warn("local queue: delete failed", slog.String("entry", aws.ToString(f.Id)), slog.String("error", aws.ToString(f.Message)))
	}
}

// Tick calls f every interval, with the tick's time, until ctx ends or f returns false.
func Tick(ctx context.Context, interval time.Duration, f func(now time.Time) bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if !f(now) {
				return
			}
		}
	}
}

// Every plays an EventBridge schedule on the local stack: it hands h a scheduled event every
// interval until ctx ends. A failing run is logged; the next one comes all the same.
func Every(ctx context.Context, interval time.Duration, h func(context.Context, events.CloudWatchEvent) error, logger *slog.Logger) {
	Tick(ctx, interval, func(now time.Time) bool {
		ev := events.CloudWatchEvent{Version: "0", Source: "aws.events", DetailType: "Scheduled Event",
			Time: now.UTC(), Region: Region, Detail: []byte("{}")}
		if err := h(ctx, ev); err != nil && ctx.Err() == nil {
			logger.Error("local schedule: run failed", slog.String("error", err.Error()))
		}
		return true
	})
}

// RunTimer plays the timer function's schedule on the local stack: a tick at once, then one every
// period, until ctx ends. tick is the timer's (patio.Timer.Tick), which waits within itself for
// what falls due before the next tick; a tick that runs past the period is followed by the next at
// once. A failing tick is logged; the next one comes all the same.
func RunTimer(ctx context.Context, period time.Duration, tick func(context.Context) (int, error), logger *slog.Logger) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if n, err := tick(ctx); err != nil && ctx.Err() == nil {
			logger.Error("local: timer tick failed", slog.String("error", err.Error()))
		} else if n > 0 {
			logger.Info("local: timer fired alarms", slog.Int("fired", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
