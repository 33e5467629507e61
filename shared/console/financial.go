package console

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// financialFilters are the query parameters of the financial list (and its CSV).
var financialFilters = []string{"type", "category", "status", "payment_method", "due_from", "due_to", "overdue"}

// financialListData is a page of financial records.
type financialListData struct {
	Items      []patio.FinancialRecord
	Total      int
	Next       string
	Overdue    bool
	Types      []string
	Categories []string
	Statuses   []string
	Methods    []string
	// CSV is the query string of the filtered list's CSV.
	CSV string
}

// allCategories lists every category, by type.
func allCategories() []string {
	var out []string
	for _, t := range patio.FinancialTypes {
		out = append(out, patio.FinancialCategories[t]...)
	}
	return out
}

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

// newFinancialListData is a financial list's page before its records: the filters' choices.
func newFinancialListData(overdue bool) financialListData {
	return financialListData{Overdue: overdue, Types: patio.FinancialTypes, Categories: allCategories(),
		Statuses: patio.FinancialStatuses, Methods: patio.DealPaymentMethods}
}

// financialList shows the team's financial records filtered by type, category, status, payment
// method and due window, by due date, paged with cursors; with overdue=1, the pending ones past
// their due date in the team's time zone.
func (c *Console) financialList(rq *request) {
	q := rq.filters()
	data := newFinancialListData(q.Get("overdue") == "1")
	title := rq.p.T("financial.title")
	if data.Overdue {
		title = rq.p.T("financial.overdue.title")
	}
	fq, err := financialQuery(q, data.Overdue)
	var page patio.Page[patio.FinancialRecord]
	if err == nil {
		page, err = c.d.Financial.List(rq.ctx(), rq.team.ID, fq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "financial", view{Title: title, Data: data, Form: refused(rq.p, q, err, financialFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = page.Items, page.Total
	data.Next = nextPage(q, financialFilters, page.List, page.Next)
	csvQuery := url.Values{}
	for _, k := range financialFilters {
		if v, ok := q[k]; ok {
			csvQuery[k] = v
		}
	}
	data.CSV = csvQuery.Encode()
	c.render(rq, http.StatusOK, "financial", view{Title: title, Data: data, Form: newForm(q)})
}

// financialCSV answers the filtered list, every page of it, as a CSV file that opens as columns
// in a spreadsheet set to the person's language: in Portuguese with ";" between fields, a decimal
// comma and a UTF-8 byte order mark; in English with "," and a decimal point.
func (c *Console) financialCSV(rq *request) {
	q := rq.filters()
	fq, err := financialQuery(q, q.Get("overdue") == "1")
	if err != nil {
		c.fail(rq, err)
		return
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if rq.p.Lang == locale.PtBR {
		buf.WriteString("\ufeff")
		w.Comma = ';'
	}
	_ = w.Write([]string{"id", "type", "category", "description", "amount", "due_date", "status", "payment_method", "paid_at",
		"vehicle_id", "client_id", "deal_id", "notes", "created_at", "updated_at"})
	err = patio.EachFinancial(rq.ctx(), c.d.Financial, rq.team.ID, fq, func(page []patio.FinancialRecord) error {
		for _, f := range page {
			paid := ""
			if f.PaidAt != nil {
				paid = f.PaidAt.String()
			}
			if err := w.Write([]string{f.ID, f.Type, f.Category, f.Description, rq.p.Decimal(f.Amount), f.DueDate.String(),
				f.Status, ptrString(f.PaymentMethod), paid, ptrString(f.VehicleID), ptrString(f.ClientID), ptrString(f.DealID),
				ptrString(f.Notes), f.CreatedAt.String(), f.UpdatedAt.String()}); err != nil {
				return err
			}
		}
		return nil
	})
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	h := rq.w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="financial-`+rq.now.In(rq.p.Loc).Format("2006-01-02")+`.csv"`)
	_, _ = rq.w.Write(buf.Bytes())
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
		"deal_id": ptrString(f.DealID), "status": f.Status}
}

// financialValues are a record's values as its edit form shows them (the amount in the person's
// language).
func (c *Console) financialValues(rq *request, f patio.FinancialRecord) url.Values {
	v := linkedFormValues(financialEditable(f), f.Revision, c.labelLinks(rq.ctx(), rq.team.ID, f.VehicleID, f.ClientID, f.DealID))
	v.Set("amount", rq.p.Decimal(f.Amount))
	return v
}

// financialNew shows the form of a new financial record.
//
// A link may prefill it (a won deal's sale: type, category, description, amount, payment method and
// the deal, its client and its vehicle), each linked record shown by its label.
func (c *Console) financialNew(rq *request) {
	values := url.Values{"type": {"revenue"}, "due_date": {rq.now.In(rq.p.Loc).Format("2006-01-02")}}
	q := rq.filters()
	for _, k := range []string{"type", "category", "description", "amount", "payment_method", "vehicle_id", "client_id", "deal_id"} {
		if v := q.Get(k); v != "" {
			values.Set(k, v)
		}
	}
	id := func(k string) *string {
		if v := values.Get(k); v != "" {
			return &v
		}
		return nil
	}
	l := c.labelLinks(rq.ctx(), rq.team.ID, id("vehicle_id"), id("client_id"), id("deal_id"))
	values.Set("vehicle", l.Vehicle)
	values.Set("client", l.Client)
	values.Set("deal", l.Deal)
	c.render(rq, http.StatusOK, "financial_new", view{Title: rq.p.T("financial.new.title"), Data: c.financialFormData(nil),
		Form: newForm(values)})
}

// financialRecords is the financial records' part of the modules' shared flows.
func (c *Console) financialRecords() records[patio.FinancialRecord, patio.FinancialInput] {
	return records[patio.FinancialRecord, patio.FinancialInput]{svc: c.d.Financial, name: "financial", base: "/console/financial/",
		fields: form.FinancialFields, read: form.Financial,
		onEdit: func(in patio.FinancialInput) patio.FinancialInput {
			in.Status, in.PaidAt = patio.Opt[string]{}, patio.Opt[patio.Timestamp]{} // moved by their own forms
			return in
		},
		id:     func(f patio.FinancialRecord) string { return f.ID },
		links:  func(f patio.FinancialRecord) (*string, *string, *string) { return f.VehicleID, f.ClientID, f.DealID },
		values: c.financialValues, editable: func(_ *request, f patio.FinancialRecord) map[string]string { return financialEditable(f) }}
}

// financialCreate creates a financial record.
func (c *Console) financialCreate(rq *request) {
	c.financialRecords().create(c, rq, func(err error, choices linkChoices) {
		d := c.financialFormData(nil)
		d.Choices = choices
		c.render(rq, http.StatusUnprocessableEntity, "financial_new", view{Title: rq.p.T("financial.new.title"), Data: d,
			Form: refused(rq.p, rq.r.PostForm, err, form.FinancialFields...)})
	})
}

// financialShow shows a financial record, its payment and transitions, and its edit form.
func (c *Console) financialShow(rq *request) {
	f, err := c.d.Financial.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderFinancial(rq, http.StatusOK, f, newForm(c.financialValues(rq, f)), nil, nil)
}

// renderFinancial renders a financial record's page with its edit form fs, the links to choose
// among and, after a stale edit, what changed.
func (c *Console) renderFinancial(rq *request, status int, f patio.FinancialRecord, fs *formState, choices linkChoices, changed []string) {
	d := c.financialFormData(&f)
	d.Choices, d.Changed = choices, changed
	d.Links = c.labelLinks(rq.ctx(), rq.team.ID, f.VehicleID, f.ClientID, f.DealID)
	c.render(rq, status, "financial_record", view{Title: f.Description, Data: d, Form: fs})
}

// financialSave applies the edit form to the revision it was loaded with (409 with what changed
// otherwise).
func (c *Console) financialSave(rq *request) {
	c.financialRecords().save(c, rq, func(cur patio.FinancialRecord, status int, f *formState, choices linkChoices, changed []string) {
		c.renderFinancial(rq, status, cur, f, choices, changed)
	})
}

// financialPay records a payment: its method and its date and time (now when not given).
func (c *Console) financialPay(rq *request) {
	ctx, id := rq.ctx(), rq.r.PathValue("id")
	values := rq.r.PostForm
	in, err := form.Financial(url.Values{"payment_method": values["payment_method"], "paid_at": values["paid_at"]}, rq.p.Loc, false)
	if err == nil {
		in.Status = patio.Some(patio.FinancialPaid)
		_, err = c.d.Financial.Update(ctx, rq.team.ID, id, in)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		cur, gerr := c.d.Financial.Get(ctx, rq.team.ID, id)
		if gerr != nil {
			c.fail(rq, gerr)
			return
		}
		f := newForm(c.financialValues(rq, cur))
		f.Values.Set("paid_at", values.Get("paid_at"))
		f.Values.Set("pay_method", values.Get("payment_method"))
		f.Problems = refused(rq.p, values, err, "payment_method", "paid_at").Problems
		c.renderFinancial(rq, http.StatusUnprocessableEntity, cur, f, nil, nil)
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/financial/"+id, "done.financial.paid")
}

// financialMove moves a record to status (cancel, reopen) as the transition table allows.
func (c *Console) financialMove(status string) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		if _, err := c.d.Financial.Update(rq.ctx(), rq.team.ID, id, patio.FinancialInput{Status: patio.Some(status)}); err != nil {
			c.fail(rq, err)
			return
		}
		c.done(rq, "/console/financial/"+id, "done.financial."+status)
	}
}

// summaryData is a period's summary and its chart.
type summaryData struct {
	Summary patio.Summary
	Chart   chart
	Types   []string
}

// financialSummary shows the totals of a period (by type, category and status) and a chart of
// revenue, expense and cost per month. The period is this month unless from and to say otherwise.
func (c *Console) financialSummary(rq *request) {
	q := rq.filters()
	today := patio.DateOf(rq.now.In(rq.p.Loc))
	first := patio.Date{Year: today.Year, Month: today.Month, Day: 1}
	from, to := first, patio.DateOf(first.Start().AddDate(0, 1, -1))
	var p patio.Problems
	for name, dst := range map[string]*patio.Date{"from": &from, "to": &to} {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			d, err := patio.ParseDate(s)
			if err != nil {
				p.Add(patio.InQuery, name, "%s must be a date (YYYY-MM-DD)", name)
				continue
			}
			*dst = d
		}
	}
	err := p.Err()
	var s patio.Summary
	if err == nil {
		s, err = patio.SummarizePeriod(rq.ctx(), c.d.Financial, rq.team.ID, from, to)
	}
	values := url.Values{"from": {from.String()}, "to": {to.String()}}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "financial_summary", view{Title: rq.p.T("summary.title"),
			Data: summaryData{Types: patio.FinancialTypes}, Form: refused(rq.p, q, err, "from", "to")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "financial_summary", view{Title: rq.p.T("summary.title"),
		Data: summaryData{Summary: s, Chart: monthChart(rq.p, s), Types: patio.FinancialTypes}, Form: newForm(values)})
}
