package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// dealWin wins a deal, asking first: winning sells its vehicle for good and a won deal is final.
// The question names the deal, its vehicle and the payment method (the one picked beside the
// button, else the deal's own); without one it asks for it, and a confirmed post that still has
// none is asked again. Only the confirmed post with a method moves the deal (dealMove).
func (c *Console) dealWin(rq *request) {
	values := rq.r.PostForm
	d, err := c.d.Records.Deals.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	method := values.Get("payment_method")
	if method == "" && d.PaymentMethod != nil {
		method = *d.PaymentMethod
	}
	if values.Get("confirm") == "1" && method != "" {
		c.dealMove(patio.DealWon)(rq)
		return
	}
	vehicle := rq.p.T("pipeline.win.novehicle")
	if d.VehicleID != nil {
		vehicle = c.labelLinks(rq.ctx(), rq.team.ID, d.VehicleID, nil, nil).Vehicle
	}
	fields := asked(rq)
	detail, more := rq.p.T("confirm.deal.win.method", rq.p.T("payment."+method)), map[string]any(nil)
	if method == "" {
		fields.Del("payment_method")
		detail, more = rq.p.T("confirm.deal.win.ask"), map[string]any{"Methods": patio.DealPaymentMethods}
	} else {
		fields.Set("payment_method", method)
	}
	c.askConfirm(rq, "confirm.deal.win", rq.p.T("confirm.deal.win.body", d.Title, vehicle), detail,
		dealsPath+"/"+d.ID, fields, more)
}
