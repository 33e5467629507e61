package samtemplate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue is one AWS::SQS::Queue resource of the template, in the terms of the SQS API so the local
// stack can create it with CreateQueue.
type Queue struct {
	// LogicalID is the resource's name in the template.
	LogicalID string
	// Attributes holds the queue attributes set as literals in the template, under their SQS API
	// names (DelaySeconds, MessageRetentionPeriod, VisibilityTimeout, ReceiveMessageWaitTimeSeconds,
	// MaximumMessageSize, FifoQueue, ContentBasedDeduplication). RedrivePolicy is not among them:
	// the dead-letter queue's ARN is only known once it exists locally.
	Attributes map[string]string
	// DeadLetterQueue is the logical id of the RedrivePolicy's target queue, or "".
	DeadLetterQueue string
	// MaxReceiveCount is the RedrivePolicy's maxReceiveCount (0 without a RedrivePolicy).
	MaxReceiveCount int
}

var queueAttributes = map[string]bool{
	"DelaySeconds":                  true,
	"MessageRetentionPeriod":        true,
	"VisibilityTimeout":             true,
	"ReceiveMessageWaitTimeSeconds": true,
	"MaximumMessageSize":            true,
	"FifoQueue":                     true,
	"ContentBasedDeduplication":     true,
}

var ignoredQueueProps = map[string]bool{
	"QueueName":                    true,
	"KmsMasterKeyId":               true,
	"KmsDataKeyReusePeriodSeconds": true,
	"SqsManagedSseEnabled":         true,
	"Tags":                         true,
	"RedriveAllowPolicy":           true,
	"DeduplicationScope":           true,
	"FifoThroughputLimit":          true,
}

// Queues returns the template's queues, every dead-letter queue before the queues that redrive to
// it, otherwise in logical-id order.
func (t *Template) Queues() []Queue {
	out := make([]Queue, len(t.queues))
	for i, q := range t.queues {
		q.Attributes = maps.Clone(q.Attributes)
		out[i] = q
	}
	return out
}

func parseQueue(id string, props map[string]any) (Queue, error) {
	path := "Resources." + id + ".Properties"
	q := Queue{LogicalID: id, Attributes: map[string]string{}}
	for _, k := range sortedKeys(props) {
		v := props[k]
		switch {
		case queueAttributes[k]:
			s, err := scalar(v, path+"."+k)
			if err != nil {
				return Queue{}, err
			}
			q.Attributes[k] = s
		case k == "RedrivePolicy":
			if err := parseRedrive(&q, v, path+".RedrivePolicy"); err != nil {
				return Queue{}, err
			}
		case ignoredQueueProps[k]:
		default:
			return Queue{}, fmt.Errorf("%s.%s: queue property not supported by the local stack", path, k)
		}
	}
	return q, nil
}

func parseRedrive(q *Queue, v any, path string) error {
	if _, ok := v.(string); ok {
		// A JSON-string policy carries a literal ARN the local stack cannot map to a local queue.
		return fmt.Errorf("%s: write it as a mapping with deadLetterTargetArn: !GetAtt <Queue>.Arn", path)
	}
	m, err := mapping(v, path)
	if err != nil {
		return err
	}
	target, ok := m["deadLetterTargetArn"].(intrinsic)
	args, _ := target.arg.([]any)
	if !ok || target.name != "Fn::GetAtt" || len(args) != 2 || args[1] != "Arn" {
		return fmt.Errorf("%s.deadLetterTargetArn: want !GetAtt <Queue>.Arn, got %s", path, describe(m["deadLetterTargetArn"]))
	}
	if q.DeadLetterQueue, ok = args[0].(string); !ok {
		return fmt.Errorf("%s.deadLetterTargetArn: want !GetAtt <Queue>.Arn", path)
	}
	n, err := integer(m["maxReceiveCount"], path+".maxReceiveCount")
	if err != nil {
		return err
	}
	q.MaxReceiveCount = int(n)
	return nil
}

// orderQueues puts every dead-letter queue before the queues redriving to it and rejects unknown
// targets and cycles. queues arrive in logical-id order and keep it otherwise.
func orderQueues(queues []Queue) ([]Queue, error) {
	byID := make(map[string]Queue, len(queues))
	for _, q := range queues {
		byID[q.LogicalID] = q
	}
	out := make([]Queue, 0, len(queues))
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(q Queue) error
	visit = func(q Queue) error {
		switch state[q.LogicalID] {
		case 1:
			return fmt.Errorf("queue %s: redrive cycle", q.LogicalID)
		case 2:
			return nil
		}
		state[q.LogicalID] = 1
		if q.DeadLetterQueue != "" {
			dlq, ok := byID[q.DeadLetterQueue]
			if !ok {
				return fmt.Errorf("queue %s: dead-letter queue %s is not an %s of the template", q.LogicalID, q.DeadLetterQueue, typeQueue)
			}
			if err := visit(dlq); err != nil {
				return err
			}
		}
		state[q.LogicalID] = 2
		out = append(out, q)
		return nil
	}
	for _, q := range queues {
		if err := visit(q); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createQueues creates every queue of tpl on the SQS endpoint of client (the local stack's moto),
// named prefix plus the logical id, dead-letter queues first so that each RedrivePolicy can name its
// target's ARN. Creating a queue that exists with the same attributes is a no-op in SQS. It returns
// the refs the template's functions see: logical id → queue URL (what !Ref of a queue returns) and
// "<logical id>.Arn" → queue ARN.
func createQueues(ctx context.Context, client *sqs.Client, tpl *Template, prefix string) (map[string]string, error) {
	refs := map[string]string{}
	for _, q := range tpl.Queues() {
		attrs := q.Attributes
		if q.DeadLetterQueue != "" {
			policy, err := json.Marshal(map[string]any{
				"deadLetterTargetArn": refs[q.DeadLetterQueue+".Arn"],
				"maxReceiveCount":     q.MaxReceiveCount,
			})
			if err != nil {
				return nil, err
			}
			attrs["RedrivePolicy"] = string(policy)
		}
		name := prefix + q.LogicalID
		if attrs["FifoQueue"] == "true" {
			name += ".fifo"
		}
		out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: create queue %s: %w", name, err)
		}
		got, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: queue %s: %w", name, err)
		}
		refs[q.LogicalID] = aws.ToString(out.QueueUrl)
		refs[q.LogicalID+".Arn"] = got.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	}
	return refs, nil
}
