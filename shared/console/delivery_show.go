package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/webhook"
)

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
