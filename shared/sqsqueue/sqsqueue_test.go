package sqsqueue_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
)

// TestEnqueueAllGroups: EnqueueAll puts the tasks of one webhook due together in messages of up to
// TasksPerMessage, and every task arrives once (moto's SQS).
func TestEnqueueAllGroups(t *testing.T) {
	testenv.Tables(t)
	url := os.Getenv("DELIVERY_QUEUE_URL")
	cfg := testenv.AWSConfig(t)
	client := sqs.NewFromConfig(cfg)
	q := sqsqueue.New(cfg, url, 0)
	now := time.Now()
	var tasks []webhook.Task
	for i := range 23 {
		tasks = append(tasks, webhook.Task{DeliveryID: fmt.Sprintf("dlv_a%02d", i), WebhookID: "A", Attempt: 1, Due: now})
	}
	tasks = append(tasks, webhook.Task{DeliveryID: "dlv_b0", WebhookID: "B", Attempt: 1, Due: now},
		webhook.Task{DeliveryID: "dlv_b1", WebhookID: "B", Attempt: 2, Due: now})
	for i, err := range q.EnqueueAll(context.Background(), tasks) {
		if err != nil {
			t.Fatalf("EnqueueAll: task %d: %v", i, err)
		}
	}
	var sizes []int
	var got []string
	for deadline := time.Now().Add(10 * time.Second); len(got) < len(tasks) && time.Now().Before(deadline); {
		out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			ts, err := sqsqueue.Decode(aws.ToString(m.Body))
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(ts))
			for _, task := range ts {
				got = append(got, task.DeliveryID)
			}
			_, _ = client.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		}
	}
	slices.Sort(sizes)
	if want := []int{2, 3, 10, 10}; !slices.Equal(sizes, want) {
		t.Errorf("messages carried %v tasks; want %v (A: 10, 10, 3; B: 2)", sizes, want)
	}
	var want []string
	for _, task := range tasks {
		want = append(want, task.DeliveryID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("received tasks %v; want each of %v once", got, want)
	}
}

// TestEnqueueAllMissingQueue: when SQS refuses the call (the queue does not exist), every task
// fails with SQS's reason; none is taken as sent.
func TestEnqueueAllMissingQueue(t *testing.T) {
	testenv.Tables(t)
	url := os.Getenv("DELIVERY_QUEUE_URL") + "-missing"
	q := sqsqueue.New(testenv.AWSConfig(t), url, 0)
	now := time.Now()
	tasks := []webhook.Task{
		{DeliveryID: "dlv_m0", WebhookID: "A", Attempt: 1, Due: now},
		{DeliveryID: "dlv_m1", WebhookID: "B", Attempt: 1, Due: now.Add(time.Minute)},
	}
	for i, err := range q.EnqueueAll(context.Background(), tasks) {
		if err == nil || !strings.Contains(err.Error(), "NonExistentQueue") && !strings.Contains(err.Error(), "QueueDoesNotExist") {
			t.Errorf("EnqueueAll to a missing queue: task %d: %v; want SQS's refusal", i, err)
		}
	}
}
