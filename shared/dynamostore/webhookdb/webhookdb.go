// Package webhookdb stores the webhooks and their deliveries on DynamoDB: the webhooks with their
// gates (the delivery pace, warnings and last success) in WebhooksTable, the deliveries with
// their lists and attempt logs in DeliveriesTable.
//
// Storage shapes live on unexported row structs; see docs/storage.md ("Webhooks") and
// docs/webhooks.md.
package webhookdb

import (
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
)

// Store is the webhooks and deliveries on one DB: webhook.Store and webhook.DeliveryLog, the
// delivery engine's ports (delivery.Deliveries, Gates and Rules) and delivery.SweepStore.
type Store struct {
	*Webhooks
	*Gates
	*DeliveryLog
}

// New returns the webhooks and deliveries stored on db.
func New(db *storecore.DB) Store {
	return Store{&Webhooks{part{db}}, &Gates{part{db}}, &DeliveryLog{part{db}}}
}

// Webhooks stores the webhooks and reads a delivery group at once (LoadGroup).
type Webhooks struct{ part }

// Gates stores each webhook's gate item beside it: its pace (delivery.Gates), its last success
// and its warning's claim.
type Gates struct{ part }

// DeliveryLog stores the webhooks' deliveries, their lists and their attempt logs.
type DeliveryLog struct{ part }

// part is what each of the package's stores holds: the store's clients and tables.
type part struct{ db *storecore.DB }

func (p part) webhooks() dynamo.Table   { return p.db.Dynamo.Table(p.db.Tables.Webhooks) }
func (p part) deliveries() dynamo.Table { return p.db.Dynamo.Table(p.db.Tables.Deliveries) }
