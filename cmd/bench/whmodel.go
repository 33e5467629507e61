package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/delivery"
)

// Webhook budgets on the model (issue 46): an event's p50 from commit to the receiver within the
// published hops and the receiver's time plus our own work's margin, and a webhook's drain to a
// 50 ms receiver at its bound.
const (
	maxTripMargin   = 20 * time.Millisecond
	minModeledDrain = 300.0 // events/s per webhook
)

// webhookTrip is one event's trip through the pipeline, each function's run recorded: the
// dispatcher's over its stream record, the deliverer's over its queue message, up to the moment
// the receiver got the POST (toReceiver) and whole. The dispatcher is warm: it dispatched a change
// of the team before (cold is that first run), as a dispatcher does every change of a team but
// the first of its instance's life.
type webhookTrip struct {
	cold, dispatch, toReceiver, deliver modeled
	err                                 error
}

// traceTrip writes one change with the pipeline stopped, then hands its stream record to the
// dispatcher and its queue message to the deliverer, each recorded; a change before it, its
// message dropped, is the dispatcher's cold run.
func (b *whBench) traceTrip(ctx context.Context) (trip webhookTrip) {
	defer catch(&trip.err)
	rec, rcfg := newRecorder(b.cfg)
	dispatch := must(workers.Dispatcher(rcfg, b.conf, b.logger))
	deliver := must(workers.Deliverer(rcfg, b.conf, b.logger))
	reader := localaws.NewStreamReader(b.cfg, b.tables["VehiclesTable"])
	check(reader.CatchUp(ctx, func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, nil
	}))
	// The stopped pipeline's queue poller may have a long poll (1 s) still open on moto, which would
	// take the trace's message to a reader gone, invisible for the queue's visibility timeout: it
	// ends first.
	sleepCtx(ctx, 2*time.Second)
	q := sqs.NewFromConfig(b.cfg)
	must(writeVehicles(ctx, b.vehicles, b.teamID, 1, 1, 0))
	trip.cold = dispatchTraced(ctx, reader, rec, dispatch)
	for _, m := range receiveTasks(ctx, q, b.conf.QueueURL) {
		must(q.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(b.conf.QueueURL), ReceiptHandle: m.ReceiptHandle}))
	}
	written := must(writeVehicles(ctx, b.vehicles, b.teamID, 1, 1, 0))
	trip.dispatch = dispatchTraced(ctx, reader, rec, dispatch)
	out := &sqs.ReceiveMessageOutput{Messages: receiveTasks(ctx, q, b.conf.QueueURL)}
	var ev events.SQSEvent
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), Attributes: m.Attributes, EventSource: "aws:sqs"})
		defer q.DeleteMessage(context.WithoutCancel(ctx), &sqs.DeleteMessageInput{QueueUrl: aws.String(b.conf.QueueURL), ReceiptHandle: m.ReceiptHandle})
	}
	if len(ev.Records) == 0 {
		check(fmt.Errorf("trace a webhook event: the dispatcher queued nothing"))
	}
	t, err := rec.trace(func() error { _, err := deliver(ctx, ev); return err })
	check(err)
	trip.deliver = model(t)
	for id := range written {
		arrived, ok := b.recv.arrivals(b.hook.ID)[id]
		if !ok {
			check(fmt.Errorf("trace a webhook event: the receiver did not get %s", id))
		}
		before := trace{start: t.start, end: arrived}
		for _, c := range t.calls {
			if !c.end.After(arrived) {
				before.calls = append(before.calls, c)
			}
		}
		trip.toReceiver = model(before)
	}
	return trip
}

// dispatchTraced reads the stream until the dispatcher had a record (the change just written may
// show up a moment after the write), and returns the model of that run.
func dispatchTraced(ctx context.Context, reader *localaws.StreamReader, rec *recorder,
	dispatch func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)) (m modeled) {
	dispatched := false
	for deadline := time.Now().Add(30 * time.Second); !dispatched && time.Now().Before(deadline); {
		check(reader.CatchUp(ctx, func(ctx context.Context, ev events.DynamoDBEvent) (resp events.DynamoDBEventResponse, err error) {
			t, err := rec.trace(func() (err error) {
				resp, err = dispatch(ctx, ev)
				return err
			})
			m, dispatched = model(t), len(ev.Records) > 0
			return resp, err
		}))
		if !dispatched {
			sleepCtx(ctx, 100*time.Millisecond)
		}
	}
	if !dispatched {
		check(fmt.Errorf("trace a webhook event: the dispatcher never had the change"))
	}
	return m
}

// receiveTasks receives the queue's messages, waiting up to 30 s for some.
func receiveTasks(ctx context.Context, q *sqs.Client, url string) []sqstypes.Message {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		out := must(q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
			WaitTimeSeconds: 1, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}}))
		if len(out.Messages) > 0 {
			return out.Messages
		}
	}
	return nil
}

// printTrip prints the modeled trip of an event and the modeled drain, and returns their budgets.
func printTrip(w io.Writer, trip webhookTrip) []string {
	if trip.err != nil {
		fmt.Fprintf(w, "\nWebhooks modeled on AWS: not measured: %v\n", trip.err)
		return []string{fmt.Sprintf("  FAIL  webhooks modeled: %v\n", trip.err)}
	}
	work := trip.dispatch.latency() + trip.toReceiver.latency()
	p50 := streamHopP50 + queueHopP50 + work
	perEvent := trip.deliver.latency() + slow50Sleep
	drain := float64(delivery.MaxBound) / perEvent.Seconds()
	fmt.Fprintln(w, "\nWebhooks modeled on AWS (cmd/bench/model.go), from one event's trip recorded function by function:")
	fmt.Fprintf(w, "  dispatcher, its first change of the team (the list read, then the delivery stored): %s (%d rounds)\n",
		ms(trip.cold.latency()), trip.cold.rounds)
	fmt.Fprintf(w, "  dispatcher warm (the list kept, read again beside the delivery's write) %s (%d rounds, %g write units), deliverer to the POST %s (%d rounds), whole %s (%d rounds, %d calls, %g write units)\n",
		ms(trip.dispatch.latency()), trip.dispatch.rounds, trip.dispatch.writes, ms(trip.toReceiver.latency()), trip.toReceiver.rounds,
		ms(trip.deliver.latency()), trip.deliver.rounds, trip.deliver.calls, trip.deliver.writes)
	fmt.Fprintf(w, "  commit → receiver p50: streams → Lambda %s + dispatcher + SQS → Lambda %s + deliverer to the POST = %s\n",
		ms(streamHopP50), ms(queueHopP50), ms(p50))
	fmt.Fprintf(w, "  drain to a %s receiver at the bound of %d: %d ÷ (%s + %s a delivery) = %.0f events/s\n", slow50Sleep,
		delivery.MaxBound, delivery.MaxBound, ms(trip.deliver.latency()), slow50Sleep, drain)
	return []string{
		fmt.Sprintf("  %s  modeled commit → receiver p50 %s ≤ streams p50 + one queue hop + the receiver's time + %s: our work %s\n",
			verdict(work <= maxTripMargin), ms(p50), maxTripMargin, ms(work)),
		fmt.Sprintf("  %s  modeled drain to a 50 ms receiver at its bound ≥ %.0f events/s per webhook: %.0f\n",
			verdict(drain >= minModeledDrain), minModeledDrain, drain),
	}
}
