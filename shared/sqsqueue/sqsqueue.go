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

// batchMax is the most messages one SendMessageBatch call takes.
const batchMax = 10

// EnqueueAll sends tasks, each delayed as Enqueue does, ten to a SendMessageBatch call (the calls
// at once); errs[i] is the outcome of tasks[i].
func (q *Queue) EnqueueAll(ctx context.Context, tasks []webhook.Task) []error {
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	for start := 0; start < len(tasks); start += batchMax {
		wg.Go(func() { q.sendBatch(ctx, tasks, start, min(start+batchMax, len(tasks)), errs) })
	}
	wg.Wait()
	return errs
}

// sendBatch sends tasks[start:end] in one call, setting their errs.
func (q *Queue) sendBatch(ctx context.Context, tasks []webhook.Task, start, end int, errs []error) {
	entries := make([]types.SendMessageBatchRequestEntry, 0, end-start)
	for i := start; i < end; i++ {
		t := tasks[i]
		body, err := json.Marshal(t)
		if err != nil {
			errs[i] = fmt.Errorf("sqsqueue: encode task %s: %w", t.DeliveryID, err)
			continue
		}
		wait := min(max(t.When().Sub(q.now()), 0), q.maxHop)
		entries = append(entries, types.SendMessageBatchRequestEntry{
			Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(string(body)),
			DelaySeconds: int32(math.Ceil(wait.Seconds())),
		})
	}
	if len(entries) == 0 {
		return
	}
	out, err := q.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
	if err != nil {
		for _, e := range entries {
			i, _ := strconv.Atoi(aws.ToString(e.Id))
			errs[i] = fmt.Errorf("sqsqueue: send task %s attempt %d: %w", tasks[i].DeliveryID, tasks[i].Attempt, err)
		}
		return
	}
	for _, f := range out.Failed {
		i, _ := strconv.Atoi(aws.ToString(f.Id))
		errs[i] = fmt.Errorf("sqsqueue: send task %s attempt %d: %s: %s", tasks[i].DeliveryID, tasks[i].Attempt,
			aws.ToString(f.Code), aws.ToString(f.Message))
	}
}

// Decode reads a task from a message body.
func Decode(body string) (webhook.Task, error) {
	var t webhook.Task
	if err := json.Unmarshal([]byte(body), &t); err != nil {
		return t, fmt.Errorf("sqsqueue: message is not a delivery task: %w", err)
	}
	if t.DeliveryID == "" || t.Attempt < 1 {
		return t, fmt.Errorf("sqsqueue: message is not a delivery task")
	}
	return t, nil
}
