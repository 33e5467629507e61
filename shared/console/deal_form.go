package console

import (
	"net/http"
	"net/url"
	"time"

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
	// Changed lists what changed since a stale edit form was loaded.
	Changed []string
	// History is a deal's latest audit entries, and Edit its edit form (its page).
	History []patio.AuditEntry
	Edit    *formState
}

// newDealFormData is the deal form's choices: the phases, payment methods and lost reasons.
func newDealFormData() dealFormData {
	return dealFormData{Phases: patio.DealPhases, Methods: patio.DealPaymentMethods, LostReasons: patio.DealLostReasons}
}

// dealNew shows the new deal form.
func (c *Console) dealNew(rq *request) {
	c.render(rq, http.StatusOK, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: newDealFormData(),
		Form: newForm(url.Values{"phase": {patio.DefaultDealPhase}})})
}

// dealRecords is the pipeline's part of the shared create and edit flows: a deal's client and
// vehicle are found by what was typed (a name or document, a plate), as an activity's links are.
func (c *Console) dealRecords() records[patio.Deal, patio.DealInput] {
	return records[patio.Deal, patio.DealInput]{svc: c.d.Records.Deals, name: "deal", base: "/console/deals/",
		fields: form.DealFields,
		read: func(values url.Values, _ *time.Location, edit bool) (patio.DealInput, error) {
			return form.Deal(values, edit)
		},
		id:    func(d patio.Deal) string { return d.ID },
		links: func(d patio.Deal) (*string, *string, *string) { return d.VehicleID, &d.ClientID, nil },
		values: func(rq *request, d patio.Deal) url.Values {
			return linkedFormValues(dealEditable(rq, d), d.Revision, c.labelLinks(rq.ctx(), rq.team.ID, d.VehicleID, &d.ClientID, nil))
		},
		editable: dealEditable}
}

// dealEditable is a deal's editable fields as its form holds them (its status moves by its own
// buttons).
func dealEditable(rq *request, d patio.Deal) map[string]string {
	m := map[string]string{"title": d.Title, "client_id": d.ClientID, "vehicle_id": ptrString(d.VehicleID), "value": "",
		"phase": d.Phase, "payment_method": ptrString(d.PaymentMethod), "expected_close_date": "", "notes": ptrString(d.Notes)}
	if d.Value != nil {
		m["value"] = rq.p.Decimal(*d.Value)
	}
	if d.ExpectedCloseDate != nil {
		m["expected_close_date"] = d.ExpectedCloseDate.String()
	}
	return m
}

// dealCreate creates a deal from the form, its client and vehicle found by what was typed, once per
// form token, through the API's use case (deal.created).
func (c *Console) dealCreate(rq *request) {
	rq.r.PostForm.Del("deal") // the form links no deal
	c.dealRecords().create(c, rq, func(err error, choices linkChoices) {
		data := newDealFormData()
		data.Choices = choices
		c.render(rq, http.StatusUnprocessableEntity, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: data,
			Form: refused(rq.p, rq.r.PostForm, err, form.DealFields...)})
	})
}

// dealSave applies the edit form through the API's use case (its rules and its deal.updated
// event) to the revision the form was loaded with: a deal changed meanwhile is not overwritten
// (409, with what changed).
func (c *Console) dealSave(rq *request) {
	rq.r.PostForm.Del("deal")
	c.dealRecords().save(c, rq, func(cur patio.Deal, status int, f *formState, choices linkChoices, changed []string) {
		c.renderDeal(rq, status, cur, nil, f, choices, changed)
	})
}

// dealShow shows a deal: its fields, its client and vehicle, and what may be done with it (win,
// lose, reopen); after a win, the sale's revenue record to create, prefilled.
func (c *Console) dealShow(rq *request) {
	c.dealPage(rq, http.StatusOK, nil)
}

// dealPage reads the path's deal and renders its page with the state f of its move forms (nil:
// empty).
func (c *Console) dealPage(rq *request, status int, f *formState) {
	d, err := c.d.Records.Deals.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderDeal(rq, status, d, f, nil, nil, nil)
}

// renderDeal renders a deal's page: moves is the state of its move forms (a refused win or loss),
// edit that of its edit form (nil: its current values), with the links to choose among and, after
// a stale edit, what changed.
func (c *Console) renderDeal(rq *request, status int, d patio.Deal, moves, edit *formState, choices linkChoices, changed []string) {
	ctx, team := rq.ctx(), rq.team.ID
	data := newDealFormData()
	data.Deal, data.Choices, data.Changed = &d, choices, changed
	l := c.labelLinks(ctx, team, d.VehicleID, &d.ClientID, nil)
	data.Client, data.Vehicle = l.Client, l.Vehicle
	var err error
	if data.History, err = c.history(ctx, team, patio.ResourceDeal, d.ID); err != nil {
		c.fail(rq, err)
		return
	}
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
	if moves == nil {
		moves = newForm(nil)
	}
	if edit == nil {
		edit = newForm(linkedFormValues(dealEditable(rq, d), d.Revision, l)) // the links as read above
	}
	data.Edit = edit
	c.render(rq, status, "deal", view{Title: d.Title, Data: data, Form: moves})
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
