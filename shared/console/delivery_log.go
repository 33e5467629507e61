package console

import (
	"github.com/patio-dev/patio/shared/webhook"
)

// deliveryLog shows the deliveries of every webhook of the team, merged newest first, with the
// filters of a webhook's list (but the search by event id, which names one webhook's delivery).
func (c *Console) deliveryLog(rq *request) {
	hooks, err := c.d.Webhooks.List(rq.ctx(), rq.team.ID, true)
	if err != nil {
		c.fail(rq, err)
		return
	}
	data := deliveryListData{URLs: map[string]string{}, Statuses: webhook.DeliveryStatuses, Types: webhook.EventTypes}
	for _, w := range hooks {
		data.URLs[w.ID] = w.URL
	}
	c.listDeliveries(rq, data, func(dq webhook.DeliveryQuery) (webhook.DeliveryPage, error) {
		return c.d.Deliveries.ListTeamDeliveries(rq.ctx(), rq.team.ID, dq)
	})
}
