package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// failingIndexer fails its calls while err is set, and counts the records it was handed.
type failingIndexer struct {
	err  error
	seen int
}

func (f *failingIndexer) Index(_ context.Context, recs []events.DynamoDBEventRecord) error {
	f.seen += len(recs)
	return f.err
}

// TestIndexHandlerReportsAFailedBatchWhole: a batch whose words were not all written is reported
// by its first record, so Lambda hands all of it over again, and the failure is logged once with
// the error; a batch indexed is reported clean.
func TestIndexHandlerReportsAFailedBatchWhole(t *testing.T) {
	var logs bytes.Buffer
	x := &failingIndexer{err: errors.New("throttled")}
	h := indexHandler(x, slog.New(slog.NewJSONHandler(&logs, nil)))
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		{Change: events.DynamoDBStreamRecord{SequenceNumber: "100"}},
		{Change: events.DynamoDBStreamRecord{SequenceNumber: "200"}},
	}}
	resp, err := h(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "100" {
		t.Fatalf("a failed batch = %+v, %v; want its first record (100) reported, no error", resp, err)
	}
	if n := strings.Count(logs.String(), "stream batch not indexed"); n != 1 || !strings.Contains(logs.String(), "throttled") {
		t.Errorf("logs %q; want one line with the error", logs.String())
	}
	x.err = nil
	if resp, err := h(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Errorf("an indexed batch = %+v, %v; want no failure", resp, err)
	}
	if resp, err := h(context.Background(), events.DynamoDBEvent{}); err != nil || len(resp.BatchItemFailures) != 0 || x.seen != 4 {
		t.Errorf("an empty batch = %+v, %v (records handed over %d); want nothing done", resp, err, x.seen)
	}
}
