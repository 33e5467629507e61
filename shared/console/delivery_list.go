package console

import (
	"net/http"
	"strings"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// deliveryList shows a webhook's deliveries, newest first, filtered by status and time window,
// paged with cursors.
func (c *Console) deliveryList(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	data := deliveryListData{Webhook: w, Statuses: webhook.DeliveryStatuses, Types: webhook.EventTypes,
		Replayable: webhook.BulkReplayable}
	// Event ids are lower case ("evt_" and hex digits): one typed or pasted in capitals is the same id.
	if ev := strings.ToLower(strings.TrimSpace(rq.filters().Get("event"))); ev != "" {
		c.deliveryOfEvent(rq, data, ev)
		return
	}
	c.listDeliveries(rq, data, func(dq webhook.DeliveryQuery) (webhook.DeliveryPage, error) {
		return c.d.Deliveries.ListWebhookDeliveries(rq.ctx(), w, dq)
	})
}

// deliveryOfEvent lists the webhook's one delivery of an event, found by its id (the delivery's id
// derives from the event's and the webhook's: one read, whatever the other filters); none when
// the webhook never got the event.
func (c *Console) deliveryOfEvent(rq *request, data deliveryListData, eventID string) {
	d, err := c.d.Deliveries.Delivery(rq.ctx(), webhook.DeliveryID(eventID, data.Webhook.ID))
	switch {
	case err == nil && d.TeamID == rq.team.ID:
		data.Deliveries = []webhook.Delivery{d}
	case err == nil, patio.IsKind(err, patio.KindNotFound):
	default:
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "deliveries", view{Title: rq.p.T("deliveries.title"), Data: data, Form: render.NewForm(rq.filters())})
}
