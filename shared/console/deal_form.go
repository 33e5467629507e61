package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// dealFormData is what the deal form and a deal's page offer and show.
type dealFormData struct {
	Deal        *patio.Deal
	Client      string // the client's name
	Vehicle     string // the vehicle's plate and title
	Choices     linkChoices
	Phases      []string
	Methods     []string
	LostReasons []string
	// Revenue is, after a win, the query string of the sale's revenue record, prefilled.
	Revenue string
}

func newDealFormData() dealFormData {
	return dealFormData{Phases: patio.DealPhases, Methods: patio.DealPaymentMethods, LostReasons: patio.DealLostReasons}
}

// dealNew shows the new deal form.
func (c *Console) dealNew(rq *request) {
	c.render(rq, http.StatusOK, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: newDealFormData(),
		Form: newForm(url.Values{"phase": {patio.DefaultDealPhase}})})
}

// dealCreate creates a deal from the form, its client and vehicle found by what was typed, once per
// form token, through the API's use case (deal.created).
func (c *Console) dealCreate(rq *request) {
	values := rq.r.PostForm
	refuse := func(err error, choices linkChoices) {
		data := newDealFormData()
		data.Choices = choices
		c.render(rq, http.StatusUnprocessableEntity, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: data,
			Form: refused(rq.p, values, err, form.DealFields...)})
	}
	values.Del("deal") // the form links no deal
	choices, err := c.resolveLinks(rq, values)
	if err != nil {
		refuse(err, choices)
		return
	}
	in, err := form.Deal(values)
	if err != nil {
		refuse(err, nil)
		return
	}
	c.createOnce(rq, values, func(err error) { refuse(err, nil) }, "/console/deals/", "done.deal.created", func() (string, error) {
		d, err := c.d.Records.Deals.Create(rq.ctx(), rq.team.ID, in)
		return d.ID, err
	})
}

// dealShow shows a deal: its fields, its client and vehicle, and what may be done with it (win,
// lose, reopen); after a win, the sale's revenue record to create, prefilled.
func (c *Console) dealShow(rq *request) {
	c.dealPage(rq, http.StatusOK, nil)
}

func (c *Console) dealPage(rq *request, status int, f *formState) {
	ctx, team := rq.ctx(), rq.team.ID
	d, err := c.d.Records.Deals.Get(ctx, team, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	data := newDealFormData()
	data.Deal = &d
	l := c.labelLinks(ctx, team, d.VehicleID, &d.ClientID, nil)
	data.Client, data.Vehicle = l.Client, l.Vehicle
	if d.Status == patio.DealWon {
		q := url.Values{"type": {"revenue"}, "category": {"venda-veiculo"}, "description": {d.Title}, "deal_id": {d.ID},
			"client_id": {d.ClientID}}
		if d.Value != nil {
			q.Set("amount", rq.p.Decimal(*d.Value))
		}
		if d.PaymentMethod != nil {
			q.Set("payment_method", *d.PaymentMethod)
		}
		if d.VehicleID != nil {
			q.Set("vehicle_id", *d.VehicleID)
		}
		data.Revenue = q.Encode()
	}
	if f == nil {
		f = newForm(nil)
	}
	c.render(rq, status, "deal", view{Title: d.Title, Data: data, Form: f})
}

// dealMove is a deal's close or reopen: win (with its payment method: in one transaction with its
// vehicle becoming vendido, of two wins racing for one vehicle exactly one), lose (with its
// reason), reopen. A refused move comes back on the deal's page with its problem.
func (c *Console) dealMove(status string) handler {
	return func(rq *request) {
		values := rq.r.PostForm
		in := patio.DealInput{Status: patio.Some(status)}
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
			c.done(rq, "/console/deals/"+rq.r.PathValue("id"), "done.deal."+status)
		case k == patio.KindInvalid || k == patio.KindConflict:
			c.dealPage(rq, http.StatusUnprocessableEntity, refused(rq.p, values, err, "payment_method", "lost_reason"))
		default:
			c.fail(rq, err)
		}
	}
}
