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
	var table string
	var item dynamo.Item
	var decoded error
	g := group{dels: make(map[string]webhook.Delivery, len(ids))}
	iter := batch.IterWithTable(&table)
	for iter.Next(ctx, &item) {
		if err := g.take(s.db.Tables.Deliveries, table, item); err != nil {
			decoded = err
		}
		item = nil
	}
	if err := iter.Err(); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return g.w, g.gate, g.dels, storecore.Wrap(err, "load deliveries of webhook", webhookID)
	}
	if decoded != nil {
		return g.w, g.gate, g.dels, storecore.Wrap(decoded, "decode deliveries of webhook", webhookID)
	}
	if !g.found {
		return g.w, g.gate, g.dels, patio.NotFoundf("webhook %s not found", webhookID)
	}
	return g.w, g.gate, g.dels, nil
}

// group is what LoadGroup has read of a webhook's delivery group.
type group struct {
	w     webhook.Webhook
	found bool // w was read
	gate  delivery.Gate
	dels  map[string]webhook.Delivery
}

// take decodes one item the batch read from table: a delivery (of the deliveries table), the
// webhook or its gate.
func (g *group) take(deliveries, table string, item dynamo.Item) error {
	switch sk, _ := item["sk"].(*types.AttributeValueMemberS); {
	case table == deliveries:
		var r deliveryRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		d, err := r.delivery()
		if err != nil {
			return err
		}
		g.dels[d.ID] = d
	case sk != nil && strings.HasPrefix(sk.Value, webhookPrefix):
		var r webhookRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		var err error
		if g.w, err = r.webhook(); err != nil {
			return err
		}
		g.found = true
	default:
		var r gateRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		g.gate = r.gate()
	}
	return nil
}
