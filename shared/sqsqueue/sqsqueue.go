// Package sqsqueue is the SQS adapter of the webhook delivery queue: it sends delivery tasks as
// messages delayed until they are due, and turns the SQS events Lambda receives back into tasks for
// the deliverer (Handler), reporting failures message by message.
//
// SQS delays a message by at most 15 minutes. A task due later is sent with the longest delay (the
// hop); the deliverer, receiving it early, sends it again with the remaining delay, so a 24 h wait
// is carried by about 96 hops and still happens within a second or two of its time.
package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/webhook"
)

// MaxDelay is the longest delay SQS allows on one message.
const MaxDelay = 15 * time.Minute

// service is SQS as its SDK client knows it (AWS JSON 1.0). The one operation the queue sends is
// called through package awsjson: the SDK's SQS client would keep every operation of SQS in the
// console, whose html/template keeps every method of what it links.
var service = awsjson.Service{ID: "SQS", SigningName: "sqs", EndpointPrefix: "sqs", TargetPrefix: "AmazonSQS",
	JSONVersion: "1.0"}

// sendMessageBatch is SQS's SendMessageBatch.
var sendMessageBatch = awsjson.Operation{Name: "SendMessageBatch"}

// Queue sends delivery tasks to one SQS queue. It is safe for concurrent use.
type Queue struct {
	client *awsjson.Client
	url    string
	maxHop time.Duration
	now    func() time.Time
}

// New returns a queue on the given AWS configuration (AWS_ENDPOINT_URL_SQS reaches a local
// emulator) and queue URL. maxHop bounds the delay of one message: MaxDelay when zero or larger.
func New(cfg aws.Config, url string, maxHop time.Duration) *Queue {
	if maxHop <= 0 || maxHop > MaxDelay {
		maxHop = MaxDelay
	}
	return &Queue{client: awsjson.New(cfg, service), url: url, maxHop: maxHop, now: time.Now}
}

// Enqueue sends t, delayed until it is due (t.When) or by the longest hop, whichever is sooner.
func (q *Queue) Enqueue(ctx context.Context, t webhook.Task) error {
	return q.EnqueueAll(ctx, []webhook.Task{t})[0]
}

// Limits of the messages EnqueueAll sends.
const (
	// TasksPerMessage is the most tasks one message carries: tasks of one webhook due at the same
	// second travel together, so a backlog takes a tenth of the messages (SQS requests, and what a
	// local emulator must sift through for each of them).
	TasksPerMessage = 10
	// batchMax is the most messages one SendMessageBatch call takes.
	batchMax = 10
)

// message is one message to send: its tasks (indexes into EnqueueAll's) and its delay.
type message struct {
	tasks []int
	delay int32
}

// EnqueueAll sends tasks, each delayed as Enqueue does: the tasks of one webhook with the same
// delay (in seconds) share messages of up to TasksPerMessage, ten messages to a SendMessageBatch
// call, the calls at once. errs[i] is the outcome of tasks[i].
func (q *Queue) EnqueueAll(ctx context.Context, tasks []webhook.Task) []error {
	errs := make([]error, len(tasks))
	var msgs []*message
	open := map[string]*message{}
	for i, t := range tasks {
		wait := min(max(t.When().Sub(q.now()), 0), q.maxHop)
		delay := int32(math.Ceil(wait.Seconds()))
		key := fmt.Sprintf("%s/%d", t.WebhookID, delay)
		m := open[key]
		if m == nil || len(m.tasks) == TasksPerMessage {
			m = &message{delay: delay}
			open[key] = m
			msgs = append(msgs, m)
		}
		m.tasks = append(m.tasks, i)
	}
	var wg sync.WaitGroup
	for start := 0; start < len(msgs); start += batchMax {
		wg.Go(func() { q.sendBatch(ctx, tasks, msgs[start:min(start+batchMax, len(msgs))], errs) })
	}
	wg.Wait()
	return errs
}

// batchEntry is one message of a SendMessageBatch request.
type batchEntry struct {
	ID           string `json:"Id"`
	MessageBody  string `json:"MessageBody"`
	DelaySeconds int32  `json:"DelaySeconds"`
}

// batchFailure is one message SendMessageBatch refused.
type batchFailure struct {
	ID      string `json:"Id"`
	Code    string `json:"Code"`
	Message string `json:"Message"`
}

// sendBatch sends msgs in one call, setting the errs of their tasks.
func (q *Queue) sendBatch(ctx context.Context, tasks []webhook.Task, msgs []*message, errs []error) {
	fail := func(m *message, err error) {
		for _, i := range m.tasks {
			errs[i] = fmt.Errorf("sqsqueue: send task %s attempt %d: %w", tasks[i].DeliveryID, tasks[i].Attempt, err)
		}
	}
	entries := make([]batchEntry, 0, len(msgs))
	for k, m := range msgs {
		var body []byte
		var err error
		if len(m.tasks) == 1 {
			body, err = json.Marshal(tasks[m.tasks[0]])
		} else {
			ts := make([]webhook.Task, len(m.tasks))
			for j, i := range m.tasks {
				ts[j] = tasks[i]
			}
			body, err = json.Marshal(ts)
		}
		if err != nil {
			fail(m, err)
			continue
		}
		entries = append(entries, batchEntry{ID: strconv.Itoa(k), MessageBody: string(body), DelaySeconds: m.delay})
	}
	if len(entries) == 0 {
		return
	}
	in := struct {
		QueueURL string       `json:"QueueUrl"`
		Entries  []batchEntry `json:"Entries"`
	}{q.url, entries}
	var out struct {
		Failed []batchFailure `json:"Failed"`
	}
	if err := q.client.Call(ctx, sendMessageBatch, in, &out); err != nil {
		for _, e := range entries {
			k, _ := strconv.Atoi(e.ID)
			fail(msgs[k], err)
		}
		return
	}
	for _, f := range out.Failed {
		refused := fmt.Errorf("%s: %s", f.Code, f.Message)
		k, err := strconv.Atoi(f.ID)
		if err != nil || k < 0 || k >= len(msgs) {
			// Not an id of ours: which message failed is unknown, so each counts as failed (a
			// task sent twice is delivered at least once; a task taken as sent may be lost).
			for _, m := range msgs {
				fail(m, refused)
			}
			return
		}
		fail(msgs[k], refused)
	}
}

// Decode reads the tasks of a message body: one task (a JSON object) or several (an array).
func Decode(body string) ([]webhook.Task, error) {
	var ts []webhook.Task
	b := []byte(strings.TrimSpace(body))
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &ts); err != nil {
			return nil, fmt.Errorf("sqsqueue: message is not a list of delivery tasks: %w", err)
		}
	} else {
		var t webhook.Task
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("sqsqueue: message is not a delivery task: %w", err)
		}
		ts = []webhook.Task{t}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("sqsqueue: message holds no delivery task")
	}
	for _, t := range ts {
		if t.DeliveryID == "" || t.Attempt < 1 {
			return nil, fmt.Errorf("sqsqueue: message is not a delivery task")
		}
	}
	return ts, nil
}
