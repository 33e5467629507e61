package sqsqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
)

// deliverFunc is a TaskDeliverer made of a function of one task, called for a batch's tasks at
// once.
type deliverFunc func(context.Context, webhook.Task) error

func (f deliverFunc) DeliverAll(ctx context.Context, ts []webhook.Task) []error {
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		wg.Go(func() { errs[i] = f(ctx, t) })
	}
	wg.Wait()
	return errs
}

// message returns an SQS message carrying t.
func message(t *testing.T, id string, task webhook.Task) events.SQSMessage {
	t.Helper()
	body, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	return events.SQSMessage{MessageId: id, Body: string(body)}
}

func TestHandler(t *testing.T) {
	errDeliver := errors.New("store unavailable")
	task := func(id string) webhook.Task {
		return webhook.Task{DeliveryID: id, WebhookID: "wh", EventID: "evt", Attempt: 1, Due: time.Unix(0, 0).UTC()}
	}
	ok1, ok2, bad := message(t, "m1", task("d1")), message(t, "m2", task("d2")), message(t, "m3", task("d3"))
	malformed := events.SQSMessage{MessageId: "m4", Body: "not a delivery task"}
	noAttempt := message(t, "m5", webhook.Task{DeliveryID: "d5"})

	tests := []struct {
		name         string
		records      []events.SQSMessage
		wantDeliver  []string // delivery ids given to the deliverer, in any order
		wantFailures []string // message ids reported, in any order
	}{
		{name: "all delivered", records: []events.SQSMessage{ok1, ok2}, wantDeliver: []string{"d1", "d2"}},
		{
			name:         "failing delivery is reported alone",
			records:      []events.SQSMessage{ok1, bad, ok2},
			wantDeliver:  []string{"d1", "d2", "d3"},
			wantFailures: []string{"m3"},
		},
		{
			name:         "messages that are not tasks are reported alone",
			records:      []events.SQSMessage{malformed, ok1, noAttempt},
			wantDeliver:  []string{"d1"},
			wantFailures: []string{"m4", "m5"},
		},
		{name: "empty batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			d := deliverFunc(func(_ context.Context, task webhook.Task) error {
				mu.Lock()
				got = append(got, task.DeliveryID)
				mu.Unlock()
				if task.DeliveryID == "d3" {
					return errDeliver
				}
				return nil
			})
			h := sqsqueue.Handler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))
			resp, err := h(context.Background(), events.SQSEvent{Records: tt.records})
			if err != nil {
				t.Fatalf("handler error = %v; want nil (failures are reported per message)", err)
			}
			var failures []string
			for _, f := range resp.BatchItemFailures {
				failures = append(failures, f.ItemIdentifier)
			}
			slices.Sort(failures)
			if !slices.Equal(failures, tt.wantFailures) {
				t.Errorf("BatchItemFailures = %v; want %v", failures, tt.wantFailures)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.wantDeliver) {
				t.Errorf("delivered %v; want %v", got, tt.wantDeliver)
			}
		})
	}
}

// TestHandlerSampleEvent feeds events/deliverer-tasks.json, a batch as SQS delivers it: one task
// and one message that is not a task, reported alone.
func TestHandlerSampleEvent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "events", "deliverer-tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 2 {
		t.Fatalf("deliverer-tasks.json has %d records; want 2 (a task, a malformed message)", len(ev.Records))
	}
	var got []webhook.Task
	d := deliverFunc(func(_ context.Context, task webhook.Task) error { got = append(got, task); return nil })
	resp, err := sqsqueue.Handler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != ev.Records[1].MessageId {
		t.Errorf("BatchItemFailures = %+v; want only %s", resp.BatchItemFailures, ev.Records[1].MessageId)
	}
	if len(got) != 1 || got[0].DeliveryID == "" || got[0].Attempt < 1 {
		t.Errorf("delivered %+v; want the sample's one task", got)
	}
	if len(got) == 1 && got[0].Token != ev.Records[0].MessageId {
		t.Errorf("task token = %q; want the message id %q (a message delivered again claims its attempt again)",
			got[0].Token, ev.Records[0].MessageId)
	}
}

// TestHandlerConcurrency: a batch larger than Concurrency is delivered whole, never more than
// Concurrency messages at once.
func TestHandlerConcurrency(t *testing.T) {
	var (
		mu             sync.Mutex
		inFlight, peak int
		delivered      int
	)
	d := deliverFunc(func(context.Context, webhook.Task) error {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // lets the others start, if the bound allowed them to
		mu.Lock()
		inFlight--
		delivered++
		mu.Unlock()
		return nil
	})
	var ev events.SQSEvent
	const n = 3*sqsqueue.Concurrency + 1
	for i := range n {
		ev.Records = append(ev.Records, message(t, fmt.Sprint(i), webhook.Task{DeliveryID: fmt.Sprint(i), Attempt: 1}))
	}
	resp, err := sqsqueue.Handler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("handler = %+v, %v; want no failures", resp, err)
	}
	if delivered != n {
		t.Errorf("delivered %d messages; want %d", delivered, n)
	}
	if peak > sqsqueue.Concurrency {
		t.Errorf("peak concurrency = %d; want at most %d", peak, sqsqueue.Concurrency)
	}
}

// TestHandlerMessageOfSeveralTasks: a message may carry several tasks (EnqueueAll groups a
// webhook's tasks); each gets its own claim token, and one failing task has the whole message
// redelivered.
func TestHandlerMessageOfSeveralTasks(t *testing.T) {
	tasks := []webhook.Task{{DeliveryID: "d1", WebhookID: "w", Attempt: 1}, {DeliveryID: "d2", WebhookID: "w", Attempt: 1},
		{DeliveryID: "d3", WebhookID: "w", Attempt: 1}}
	body, err := json.Marshal(tasks)
	if err != nil {
		t.Fatal(err)
	}
	ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "many", Body: string(body)}, message(t, "one", webhook.Task{DeliveryID: "d4", Attempt: 1})}}
	for _, failOn := range []string{"", "d2"} {
		var (
			mu     sync.Mutex
			tokens = map[string]string{}
		)
		d := deliverFunc(func(_ context.Context, task webhook.Task) error {
			mu.Lock()
			tokens[task.DeliveryID] = task.Token
			mu.Unlock()
			if task.DeliveryID == failOn {
				return errors.New("boom")
			}
			return nil
		})
		resp, err := sqsqueue.Handler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"d1": "many#0", "d2": "many#1", "d3": "many#2", "d4": "one"}
		if len(tokens) != 4 {
			t.Errorf("delivered %v; want the four tasks", tokens)
		}
		for id, tok := range want {
			if tokens[id] != tok {
				t.Errorf("task %s token = %q; want %q", id, tokens[id], tok)
			}
		}
		var failures []string
		for _, f := range resp.BatchItemFailures {
			failures = append(failures, f.ItemIdentifier)
		}
		if wantF := map[string][]string{"": nil, "d2": {"many"}}[failOn]; !slices.Equal(failures, wantF) {
			t.Errorf("with %q failing, BatchItemFailures = %v; want %v", failOn, failures, wantF)
		}
	}
}
