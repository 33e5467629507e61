package console

import (
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// financialFilters are the query parameters of the financial list (and its CSV).
var financialFilters = []string{"type", "category", "status", "payment_method", "due_from", "due_to", "overdue"}

// financialQuery reads the list's filters (due dates are the team's calendar dates).
func financialQuery(q url.Values, overdue bool) (patio.FinancialQuery, error) {
	var p patio.Problems
	fq := patio.FinancialQuery{ListQuery: patio.ListQuery{Sort: "due_date", Limit: patio.Some(moduleLimit), Status: q["status"]},
		Type: q["type"], Category: q["category"], PaymentMethod: q["payment_method"], Overdue: overdue}
	if err := parseCursor(q.Get("cursor"), &fq.ListQuery); err != nil {
		p.AddError(patio.InQuery, "cursor", err)
	}
	for name, dst := range map[string]**patio.Date{"due_from": &fq.DueFrom, "due_to": &fq.DueTo} {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			d, err := patio.ParseDate(s)
			if err != nil {
				p.Add(patio.InQuery, name, "%s must be a date (YYYY-MM-DD)", name)
				continue
			}
			*dst = &d
		}
	}
	return fq, p.Err()
}

// financialFormData is what the financial form shows besides its values.
type financialFormData struct {
	Record     *patio.FinancialRecord
	Types      []string
	Categories map[string][]string
	Methods    []string
	Choices    linkChoices
	Links      linkLabels
	Changed    []string
}

// financialFormData is the financial form's choices, and the record edited (nil for a new one).
func (c *Console) financialFormData(rec *patio.FinancialRecord) financialFormData {
	return financialFormData{Record: rec, Types: patio.FinancialTypes, Categories: patio.FinancialCategories,
		Methods: patio.DealPaymentMethods}
}

// financialEditable is a record's editable fields, as its form holds them.
func financialEditable(f patio.FinancialRecord) map[string]string {
	return map[string]string{"type": f.Type, "category": f.Category, "description": f.Description,
		"amount": f.Amount.String(), "due_date": f.DueDate.String(), "payment_method": ptrString(f.PaymentMethod),
		"notes": ptrString(f.Notes), "vehicle_id": ptrString(f.VehicleID), "client_id": ptrString(f.ClientID),
		"deal_id": ptrString(f.DealID), "status": string(f.Status)}
}

// financialValues are a record's values as its edit form shows them (the amount in the person's
// language).
func (c *Console) financialValues(rq *request, f patio.FinancialRecord) url.Values {
	v := linkedFormValues(financialEditable(f), f.Revision, c.labelLinks(rq.ctx(), rq.team.ID, f.VehicleID, f.ClientID, f.DealID))
	v.Set("amount", rq.p.Decimal(f.Amount))
	return v
}

// financialRecords is the financial records' part of the modules' shared flows.
func (c *Console) financialRecords() records[patio.FinancialRecord, patio.FinancialInput] {
	return records[patio.FinancialRecord, patio.FinancialInput]{svc: c.d.Financial, name: "financial", base: financialPath + "/",
		fields: form.FinancialFields, read: func(values url.Values, p locale.Printer, edit bool) (patio.FinancialInput, error) {
			return form.Financial(values, p.Loc, p.Lang, edit)
		},
		onEdit: func(in patio.FinancialInput) patio.FinancialInput {
			in.Status, in.PaidAt = patio.Opt[string]{}, patio.Opt[patio.Timestamp]{} // moved by their own forms
			return in
		},
		id:     func(f patio.FinancialRecord) string { return f.ID },
		links:  func(f patio.FinancialRecord) (*string, *string, *string) { return f.VehicleID, f.ClientID, f.DealID },
		values: c.financialValues, editable: func(_ *request, f patio.FinancialRecord) map[string]string { return financialEditable(f) }}
}

// renderFinancial renders a financial record's page with its edit form fs, the links to choose
// among and, after a stale edit, what changed.
func (c *Console) renderFinancial(rq *request, status int, f patio.FinancialRecord, fs *render.Form, choices linkChoices, changed []string) {
	d := c.financialFormData(&f)
	d.Choices, d.Changed = choices, changed
	d.Links = c.labelLinks(rq.ctx(), rq.team.ID, f.VehicleID, f.ClientID, f.DealID)
	// The pay form offers the record's own payment method (the one a won deal's sale was agreed
	// with), unless a refused payment chose another.
	if fs != nil && fs.Value("pay_method") == "" && f.PaymentMethod != nil {
		fs.Values.Set("pay_method", *f.PaymentMethod)
	}
	c.render(rq, status, "financial_record", view{Title: f.Description, Data: d, Form: fs})
}

// financialName is the description and amount of the path's financial record, which its
// cancellation's confirmation names.
func (c *Console) financialName(rq *request) (string, bool) {
	f, err := c.d.Financial.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return f.Description + " (" + rq.p.Money(f.Amount) + ")", true
}
