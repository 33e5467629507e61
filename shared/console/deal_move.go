package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// dealMove is a deal's close or reopen: win (with its payment method: in one transaction with its
// vehicle becoming vendido, of two wins racing for one vehicle exactly one), lose (with its
// reason), reopen. A refused move comes back on the deal's page with its problem.
func (c *Console) dealMove(status patio.DealStatus) handler {
	return func(rq *request) {
		values := rq.r.PostForm
		in := patio.DealInput{Status: patio.Some(string(status))}
		switch status {
		case patio.DealWon:
			if m := values.Get("payment_method"); m != "" {
				in.PaymentMethod = patio.Some(m)
			}
		case patio.DealLost:
			if r := values.Get("lost_reason"); r != "" {
				in.LostReason = patio.Some(r)
			}
		}
		_, err := c.d.Records.Deals.Update(rq.ctx(), rq.team.ID, rq.r.PathValue("id"), in)
		switch k := patio.KindOf(err); {
		case err == nil:
			c.done(rq, dealsPath+"/"+rq.r.PathValue("id"), "done.deal."+string(status))
		case k == patio.KindInvalid || k == patio.KindConflict:
			c.dealPage(rq, http.StatusUnprocessableEntity, render.Refused(rq.p, values, err, "payment_method", "lost_reason"))
		default:
			c.fail(rq, err)
		}
	}
}
