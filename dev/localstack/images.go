package localstack

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/imagesapp"
)

// PhotoEventsVar names the queue moto sends the photos bucket's notifications to
// (samtemplate.Bucket.Events): on AWS the bucket tells EventBridge, whose rule invokes the image
// function; moto delivers S3 notifications to a queue, which the local stack polls instead.
const PhotoEventsVar = "PHOTOS_EVENTS_QUEUE_URL"

// startImages runs the image function on the photos bucket's notifications, one invocation per
// object created, as EventBridge would invoke it; a failed invocation's message comes back after
// the queue's visibility timeout (Lambda's retries of an asynchronous invocation).
func startImages(ctx context.Context, cfg aws.Config, c app.Config, logger *slog.Logger) error {
	queue := os.Getenv(PhotoEventsVar)
	if c.PhotosBucket == "" || queue == "" {
		return nil
	}
	h, err := imagesapp.Build(cfg, c, logger)
	if err != nil {
		return err
	}
	go func() {
		if err := localaws.PollQueue(ctx, cfg, queue, invokeImages(h), logger, 0); err != nil {
			logger.Error("localstack: photo events poller stopped", slog.String("error", err.Error()))
		}
	}()
	return nil
}

// s3Notification is an S3 event notification as moto sends it to a queue.
type s3Notification struct {
	Records []struct {
		EventName string `json:"eventName"`
		S3        struct {
			Bucket struct {
				Name string `json:"name"`
			} `json:"bucket"`
			Object struct {
				Key  string `json:"key"`
				Size int64  `json:"size"`
			} `json:"object"`
		} `json:"s3"`
	} `json:"Records"`
}

// invokeImages turns each notification into the EventBridge "Object Created" event the image
// function receives on AWS, and reports the messages whose invocation failed.
func invokeImages(h imagesapp.Handler) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, m := range ev.Records {
			var n s3Notification
			_ = json.Unmarshal([]byte(m.Body), &n) // a test event or other body: nothing to do
			for _, r := range n.Records {
				var d imagesapp.ObjectCreated
				d.Bucket.Name = r.S3.Bucket.Name
				d.Object.Key, _ = url.QueryUnescape(r.S3.Object.Key) // notifications URL-encode keys
				d.Object.Size = r.S3.Object.Size
				detail, _ := json.Marshal(d)
				if err := h(ctx, events.CloudWatchEvent{ID: m.MessageId, Source: "aws.s3", DetailType: "Object Created",
					Detail: detail}); err != nil {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
					break
				}
			}
		}
		return resp, nil
	}
}
