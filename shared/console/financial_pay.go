package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// financialPay records a payment: its method and its date and time (now when not given).
func (c *Console) financialPay(rq *request) {
	ctx, id := rq.ctx(), rq.r.PathValue("id")
	values := rq.r.PostForm
	in, err := form.Financial(url.Values{"payment_method": values["payment_method"], "paid_at": values["paid_at"]}, rq.p.Loc, rq.p.Lang, false)
	if err == nil {
		in.Status = patio.Some(string(patio.FinancialPaid))
		_, err = c.d.Financial.Update(ctx, rq.team.ID, id, in)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		cur, gerr := c.d.Financial.Get(ctx, rq.team.ID, id)
		if gerr != nil {
			c.fail(rq, gerr)
			return
		}
		f := render.NewForm(c.financialValues(rq, cur))
		f.Values.Set("paid_at", values.Get("paid_at"))
		f.Values.Set("pay_method", values.Get("payment_method"))
		f.Problems = render.Refused(rq.p, values, err, "payment_method", "paid_at").Problems
		c.renderFinancial(rq, http.StatusUnprocessableEntity, cur, f, nil, nil)
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, financialPath+"/"+id, "done.financial.paid")
}
