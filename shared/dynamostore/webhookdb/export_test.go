package webhookdb

import (
	"context"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// DeliveryExpiry returns when the table's TTL may take a delivery's item (its expires_at).
func DeliveryExpiry(ctx context.Context, s *DeliveryLog, id string) (time.Time, error) {
	var row struct {
		ExpiresAt int64 `dynamo:"expires_at"`
	}
	err := s.deliveries().Get("pk", id).Consistent(true).One(ctx, &row)
	return time.Unix(row.ExpiresAt, 0), err
}

// PutFirstRotation stores a webhook the way the first rotation format kept a rotation: secret
// still the old one, the new one in next_secret until rotates_at.
func PutFirstRotation(t *testing.T, s *Webhooks, w webhook.Webhook, next string, rotatesAt patio.Timestamp) {
	t.Helper()
	row := toWebhookRow(w)
	rotates := rotatesAt.String()
	row.NextSecret, row.RotatesAt = next, &rotates
	if err := s.webhooks().Put(row).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// WebhookItem returns a webhook's item as stored.
func WebhookItem(ctx context.Context, s *Webhooks, teamID, id string) (dynamo.Item, error) {
	var item dynamo.Item
	err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.Equal, webhookSK(id)).Consistent(true).One(ctx, &item)
	return item, err
}
