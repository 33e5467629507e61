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
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/patio-dev/patio/shared/webhook"
)

// MaxDelay is the longest delay SQS allows on one message.
const MaxDelay = 15 * time.Minute

// Queue sends delivery tasks to one SQS queue. It is safe for concurrent use.
type Queue struct {
	client *sqs.Client
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
	return &Queue{client: sqs.NewFromConfig(cfg), url: url, maxHop: maxHop, now: time.Now}
}

// Client returns the SQS client, for the local stack's poller.
func (q *Queue) Client() *sqs.Client { return q.client }

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

// sendBatch sends msgs in one call, setting the errs of their tasks.
func (q *Queue) sendBatch(ctx context.Context, tasks []webhook.Task, msgs []*message, errs []error) {
	fail := func(m *message, err error) {
		for _, i := range m.tasks {
			errs[i] = fmt.Errorf("sqsqueue: send task %s attempt %d: %w", tasks[i].DeliveryID, tasks[i].Attempt, err)
		}
	}
	entries := make([]types.SendMessageBatchRequestEntry, 0, len(msgs))
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
		entries = append(entries, types.SendMessageBatchRequestEntry{
			Id: aws.String(strconv.Itoa(k)), MessageBody: aws.String(string(body)), DelaySeconds: m.delay,
		})
	}
	if len(entries) == 0 {
		return
	}
	out, err := q.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
	if err != nil {
		for _, e := range entries {
			k, _ := strconv.Atoi(aws.ToString(e.Id))
			fail(msgs[k], err)
		}
		return
	}
	for _, f := range out.Failed {
		k, _ := strconv.Atoi(aws.ToString(f.Id))
		fail(msgs[k], fmt.Errorf("%s: %s", aws.ToString(f.Code), aws.ToString(f.Message)))
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
