package localaws_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/testenv"
)

// streamRecorder is a stream handler that records the sort keys of the new images it is given.
type streamRecorder struct {
	mu   sync.Mutex
	keys []string
}

func (r *streamRecorder) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range ev.Records {
		r.keys = append(r.keys, rec.Change.NewImage["sk"].String())
	}
	return events.DynamoDBEventResponse{}, nil
}

func (r *streamRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.keys)
}

// countCalls adds to cfg a middleware that counts the calls of each operation.
func countCalls(cfg aws.Config, counts *sync.Map) aws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(cfg.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("count", func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			n, _ := counts.LoadOrStore(middleware.GetOperationName(ctx), new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
	})
	return cfg
}

// poll runs PollStreams on tables with the checkpoint file, handing records to r, until stop.
func poll(t *testing.T, cfg aws.Config, tables []string, file string, r *streamRecorder) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- localaws.PollStreams(ctx, cfg, tables, r.handle, slog.New(slog.NewJSONHandler(io.Discard, nil)),
			localaws.StreamOptions{Checkpoints: file})
	}()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("PollStreams = %v", err)
		}
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPollStreamsResumes: a poller with a checkpoint file resumes after the last record handed
// over, so a restart hands over nothing twice, and it describes the stream only at start while
// nothing changes (not once a second).
func TestPollStreamsResumes(t *testing.T) {
	tables := testenv.Tables(t)
	var counts sync.Map
	cfg := countCalls(testenv.AWSConfig(t), &counts)
	db := dynamodb.NewFromConfig(cfg)
	table := tables["VehiclesTable"]
	put := func(sk string) {
		t.Helper()
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "poller-test"}, "sk": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "checkpoints.json")
	run := func(r *streamRecorder) (stop func()) { return poll(t, cfg, []string{table}, file, r) }
	mine := func(keys []string) []string {
		var out []string
		for _, k := range keys {
			if len(k) > 2 && k[:2] == "x#" {
				out = append(out, k)
			}
		}
		return out
	}

	first := &streamRecorder{}
	stop := run(first)
	for i := range 3 {
		put(fmt.Sprintf("x#%d", i))
	}
	waitUntil(t, "the first three records", func() bool { return len(mine(first.seen())) == 3 })
	time.Sleep(2 * time.Second) // idle: a poller describing its stream every second would show now
	stop()
	if n, _ := counts.Load("DescribeStream"); n == nil || n.(*atomic.Int64).Load() != 1 {
		t.Errorf("DescribeStream called %v times in an idle 2 s; want once, at start", n)
	}

	second := &streamRecorder{}
	put("x#3")
	stop = run(second)
	put("x#4")
	waitUntil(t, "the records made since", func() bool { return len(mine(second.seen())) == 2 })
	time.Sleep(500 * time.Millisecond)
	stop()
	if got, want := mine(second.seen()), []string{"x#3", "x#4"}; !slices.Equal(got, want) {
		t.Errorf("after a restart the poller handed over %v; want only %v", got, want)
	}
}

// TestPollStreamsIdleShardAfterOtherWrites: one table written many times while another stays
// idle (the local engine keeps every stream's records together), then the idle one written: its
// record is handed over, once, and a restart from the kept positions hands nothing over again.
func TestPollStreamsIdleShardAfterOtherWrites(t *testing.T) {
	tables := testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	db := dynamodb.NewFromConfig(cfg)
	busy, idle := tables["DealsTable"], tables["FinancialTable"]
	put := func(table, sk string) {
		t.Helper()
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "idle-test"}, "sk": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "checkpoints.json")
	run := func(r *streamRecorder) (stop func()) { return poll(t, cfg, []string{busy, idle}, file, r) }
	count := func(r *streamRecorder, prefix string) int {
		n := 0
		for _, k := range r.seen() {
			if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
				n++
			}
		}
		return n
	}

	first := &streamRecorder{}
	stop := run(first)
	for i := range 200 {
		put(busy, fmt.Sprintf("b#%03d", i))
	}
	waitUntil(t, "the busy table's 200 records", func() bool { return count(first, "b#") == 200 })
	put(idle, "i#1")
	waitUntil(t, "the idle table's record", func() bool { return count(first, "i#") == 1 })
	stop()

	second := &streamRecorder{}
	stop = run(second)
	defer stop()
	put(idle, "i#2")
	put(busy, "b#200")
	// A shard hands its records over in order: one handed over again would come before these.
	waitUntil(t, "one new record of each table", func() bool { return count(second, "i#") > 0 && count(second, "b#") > 0 })
	got := second.seen()
	slices.Sort(got)
	if want := []string{"b#200", "i#2"}; !slices.Equal(got, want) {
		t.Errorf("after a restart the pollers handed over %v; want only %v", got, want)
	}
}

// logCounter is a slog handler that counts the records logged at warning level or above.
type logCounter struct{ warnings atomic.Int64 }

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		l.warnings.Add(1)
	}
	return nil
}
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCounter) WithGroup(string) slog.Handler      { return l }

// TestPollStreamsStartsWhenItCan: a poller whose table cannot be described at start (here it does
// not exist yet; under load the engine times out) keeps trying, and hands over the table's records
// once it can, as an event source mapping does, instead of stopping for good.
func TestPollStreamsStartsWhenItCan(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	db := dynamodb.NewFromConfig(cfg)
	table := fmt.Sprintf("poller-late-%d", time.Now().UnixNano())
	logs := &logCounter{}
	r := &streamRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- localaws.PollStreams(ctx, cfg, []string{table}, r.handle, slog.New(logs), localaws.StreamOptions{})
	}()
	waitUntil(t, "a failed describe", func() bool { return logs.warnings.Load() > 0 })
	select {
	case err := <-done:
		t.Fatalf("PollStreams returned %v before its context ended; want it to keep trying", err)
	default:
	}
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "poller-test"}, "sk": &types.AttributeValueMemberS{Value: "x#late"}}})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the late table's record", func() bool { return slices.Contains(r.seen(), "x#late") })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("PollStreams = %v", err)
	}
}
