package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// deliveryListData is a page of a webhook's deliveries, or of every webhook's of the team (the
// log: Webhook zero, URLs naming each delivery's webhook).
type deliveryListData struct {
	Webhook    webhook.Webhook
	URLs       map[string]string // webhook id → its URL (the log)
	Deliveries []webhook.Delivery
	Statuses   []string
	Types      []string // the event types the filter offers
	// Next is the query string of the next page ("" on the last).
	Next string
	// Replayable are the statuses a bulk replay may name.
	Replayable []string
}

// deliveryFilters are the query parameters of a delivery list that its pages keep.
var deliveryFilters = []string{"status", "type", "since", "until"}

// listDeliveries reads the filters, lists one page with list and renders it (400 with the
// problems of refused filters).
func (c *Console) listDeliveries(rq *request, data deliveryListData, list func(webhook.DeliveryQuery) (webhook.DeliveryPage, error)) {
	q := rq.filters()
	dq, err := form.Deliveries(q, rq.p.Loc)
	var page webhook.DeliveryPage
	if err == nil {
		page, err = list(dq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "deliveries", view{Title: rq.p.T("deliveries.title"), Data: data,
			Form: render.Refused(rq.p, q, err, deliveryFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Deliveries = page.Deliveries
	if page.NextCursor != "" {
		next := url.Values{}
		for _, k := range deliveryFilters {
			next[k] = q[k]
		}
		next.Set("cursor", page.NextCursor)
		data.Next = next.Encode()
	}
	c.render(rq, http.StatusOK, "deliveries", view{Title: rq.p.T("deliveries.title"), Data: data, Form: render.NewForm(q)})
}

// ownDelivery returns the delivery of the path's id when it is the current team's; 404 otherwise.
func (c *Console) ownDelivery(rq *request) (webhook.Delivery, bool) {
	d, err := c.d.Deliveries.Delivery(rq.ctx(), rq.r.PathValue("id"))
	if err == nil && d.TeamID != rq.team.ID {
		err = patio.NotFoundf("delivery not found")
	}
	if err != nil {
		c.fail(rq, err)
		return d, false
	}
	return d, true
}
