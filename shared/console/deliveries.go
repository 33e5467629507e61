package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
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

// deliveryList shows a webhook's deliveries, newest first, filtered by status and time window,
// paged with cursors.
func (c *Console) deliveryList(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	data := deliveryListData{Webhook: w, Statuses: webhook.DeliveryStatuses, Types: webhook.EventTypes,
		Replayable: webhook.BulkReplayable}
	if ev := strings.TrimSpace(rq.filters().Get("event")); ev != "" {
		c.deliveryOfEvent(rq, data, ev)
		return
	}
	c.listDeliveries(rq, data, func(dq webhook.DeliveryQuery) (webhook.DeliveryPage, error) {
		return c.d.Webhooks.ListDeliveries(rq.ctx(), w.ID, dq)
	})
}

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
		return c.d.Webhooks.ListTeamDeliveries(rq.ctx(), rq.team.ID, dq)
	})
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
			Form: refused(rq.p, q, err, deliveryFilters...)})
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
	c.render(rq, http.StatusOK, "deliveries", view{Title: rq.p.T("deliveries.title"), Data: data, Form: newForm(q)})
}

// deliveryOfEvent lists the webhook's one delivery of an event, found by its id (the delivery's id
// derives from the event's and the webhook's: one read, whatever the other filters); none when
// the webhook never got the event.
func (c *Console) deliveryOfEvent(rq *request, data deliveryListData, eventID string) {
	d, err := c.d.Webhooks.Delivery(rq.ctx(), webhook.DeliveryID(eventID, data.Webhook.ID))
	switch {
	case err == nil && d.TeamID == rq.team.ID:
		data.Deliveries = []webhook.Delivery{d}
	case err == nil, patio.IsKind(err, patio.KindNotFound):
	default:
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "deliveries", view{Title: rq.p.T("deliveries.title"), Data: data, Form: newForm(rq.filters())})
}

// ownDelivery returns the delivery of the path's id when it is the current team's; 404 otherwise.
func (c *Console) ownDelivery(rq *request) (webhook.Delivery, bool) {
	d, err := c.d.Webhooks.Delivery(rq.ctx(), rq.r.PathValue("id"))
	if err == nil && d.TeamID != rq.team.ID {
		err = patio.NotFoundf("delivery not found")
	}
	if err != nil {
		c.fail(rq, err)
		return d, false
	}
	return d, true
}

// deliveryShow shows one delivery: its body exactly as sent (the bytes signed, in their order)
// and every attempt (status code, duration, error class, the start of the response). A delivery
// still waiting for its attempt reloads itself.
func (c *Console) deliveryShow(rq *request) {
	d, ok := c.ownDelivery(rq)
	if !ok {
		return
	}
	v := view{Title: rq.p.T("delivery.title"), Data: map[string]any{"Delivery": d, "Payload": string(d.Payload)}}
	if d.Status == webhook.DeliveryPending && len(d.Attempts) == 0 {
		v.Refresh = 2
	}
	c.render(rq, http.StatusOK, "delivery", v)
}

// replayOne re-sends a finished delivery, a delivered one included.
func (c *Console) replayOne(rq *request) {
	d, ok := c.ownDelivery(rq)
	if !ok {
		return
	}
	if _, err := c.d.Webhooks.Replay(rq.ctx(), d.ID); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/deliveries/"+d.ID, "done.delivery.replayed")
}

// replayBulk re-sends every matching delivery of a webhook: first it says how many and asks to
// confirm; with confirm it replays them and says how many it did.
func (c *Console) replayBulk(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	values := rq.r.PostForm
	q, err := form.Deliveries(values, rq.p.Loc)
	if err == nil && len(q.Statuses) == 0 {
		err = patio.Invalidf("status must name failed, cancelled or skipped")
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	ctx := rq.ctx()
	if values.Get("confirm") == "" {
		n, err := c.d.Webhooks.CountReplayable(ctx, w.ID, q.Statuses, q.Since, q.Until)
		if err != nil {
			c.fail(rq, err)
			return
		}
		c.render(rq, http.StatusOK, "replay_confirm", view{Title: rq.p.T("replay.confirm.title"),
			Data: map[string]any{"Webhook": w, "Count": n}, Form: newForm(values)})
		return
	}
	n, err := c.d.Webhooks.ReplayAll(ctx, w.ID, q.Statuses, q.Since, q.Until)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.redirect(rq, "/console/webhooks/"+w.ID+"/deliveries?done=done.replayed.bulk&n="+strconv.Itoa(n))
}
