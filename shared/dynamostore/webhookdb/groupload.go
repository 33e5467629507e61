package webhookdb

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// LoadGroup reads a webhook, its gate and deliveries in one BatchGetItem call (more when more than
// 98 deliveries are asked for), strongly consistent: what the deliverer needs for the tasks of one
// webhook.
func (s *Webhooks) LoadGroup(ctx context.Context, teamID, webhookID string, ids []string) (webhook.Webhook, delivery.Gate, map[string]webhook.Delivery, error) {
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{id}
	}
	batch := s.webhooks().Batch("pk", "sk").Get(dynamo.Keys{teamID, webhookSK(webhookID)}, dynamo.Keys{teamID, gateSK(webhookID)}).
		From(s.deliveries(), "pk", keys...).Consistent(true)
	var (
		table   string
		item    map[string]types.AttributeValue
		w       webhook.Webhook
		found   bool
		gate    delivery.Gate
		dels    = make(map[string]webhook.Delivery, len(ids))
		decoded error
	)
	iter := batch.IterWithTable(&table)
	for iter.Next(ctx, &item) {
		switch sk, _ := item["sk"].(*types.AttributeValueMemberS); {
		case table == s.db.Tables.Deliveries:
			var r deliveryRow
			if err := dynamo.UnmarshalItem(item, &r); err != nil {
				decoded = err
				continue
			}
			d, err := r.delivery()
			if err != nil {
				decoded = err
				continue
			}
			dels[d.ID] = d
		case sk != nil && strings.HasPrefix(sk.Value, webhookPrefix):
			var r webhookRow
			if err := dynamo.UnmarshalItem(item, &r); err != nil {
				decoded = err
				continue
			}
			if w, decoded = r.webhook(); decoded == nil {
				found = true
			}
		default:
			var r gateRow
			if err := dynamo.UnmarshalItem(item, &r); err != nil {
				decoded = err
				continue
			}
			gate = r.gate()
		}
		item = nil
	}
	if err := iter.Err(); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return w, gate, dels, storecore.Wrap(err, "load deliveries of webhook", webhookID)
	}
	if decoded != nil {
		return w, gate, dels, storecore.Wrap(decoded, "decode deliveries of webhook", webhookID)
	}
	if !found {
		return w, gate, dels, patio.NotFoundf("webhook %s not found", webhookID)
	}
	return w, gate, dels, nil
}
