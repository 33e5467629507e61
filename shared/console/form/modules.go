package form

import (
	"net/url"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// ActivityFields are the fields of the activity form.
var ActivityFields = []string{"type", "title", "description", "due_at", "vehicle", "client", "deal", "vehicle_id",
	"client_id", "deal_id", "status"}

// FinancialFields are the fields of the financial record form.
var FinancialFields = []string{"type", "category", "description", "amount", "due_date", "payment_method", "notes",
	"vehicle", "client", "deal", "vehicle_id", "client_id", "deal_id", "paid_at", "status"}

// text returns a field as an optional member: absent from the form, absent; empty, null when
// clearable (an edit), absent otherwise; else its value.
func text(v url.Values, name string, clearable bool) patio.Opt[string] {
	vals, ok := v[name]
	if !ok {
		return patio.Opt[string]{}
	}
	s := strings.TrimSpace(strings.Join(vals, ""))
	if s == "" {
		if clearable {
			return patio.Opt[string]{Null: true}
		}
		return patio.Opt[string]{}
	}
	return patio.Some(s)
}

// multiline is text keeping the value's inner line breaks (\r\n as \n).
func multiline(v url.Values, name string, clearable bool) patio.Opt[string] {
	o := text(v, name, clearable)
	if o.Set() {
		o.Value = strings.ReplaceAll(o.Value, "\r\n", "\n")
	}
	return o
}

// DateTime reads a date and time as an <input type="datetime-local"> sends it (YYYY-MM-DDTHH:MM,
// seconds optional), in loc.
func DateTime(s string, loc *time.Location) (patio.Timestamp, bool) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(s), loc); err == nil {
			return patio.NewTimestamp(t), true
		}
	}
	return patio.Timestamp{}, false
}

// LocalDateTime formats an instant as an <input type="datetime-local"> shows it, in loc.
func LocalDateTime(t patio.Timestamp, loc *time.Location) string {
	return t.Time().In(loc).Format("2006-01-02T15:04")
}

// Activity reads the activity form into an input: type, title, description, due_at (a date and
// time in the team's time zone loc), status, and the links vehicle_id, client_id, deal_id (which
// the console resolves from vehicle, client and deal first). edit makes an emptied optional field
// null (cleared).
func Activity(v url.Values, loc *time.Location, edit bool) (patio.ActivityInput, error) {
	var p patio.Problems
	in := patio.ActivityInput{Type: text(v, "type", false), Title: text(v, "title", false),
		Description: multiline(v, "description", edit), Status: text(v, "status", false),
		VehicleID: text(v, "vehicle_id", edit), ClientID: text(v, "client_id", edit), DealID: text(v, "deal_id", edit)}
	if edit {
		if _, ok := v["title"]; ok && !in.Title.Set() {
			p.Add(patio.InBody, "title", "title is required")
		}
	}
	switch due := text(v, "due_at", edit); {
	case due.Null:
		in.DueAt = patio.Opt[patio.Timestamp]{Null: true}
	case due.Set():
		ts, ok := DateTime(due.Value, loc)
		if !ok {
			p.Add(patio.InBody, "due_at", "due_at must be a date and time")
		}
		in.DueAt = patio.Some(ts)
	}
	if err := in.Validate(time.Time{}); err != nil {
		p.AddError(patio.InBody, "", err)
	}
	return in, p.Err()
}

// Financial reads the financial record form into an input: type, category, description, amount
// (a decimal with a comma or a point, thousands separators allowed), due_date (YYYY-MM-DD),
// payment_method, notes, status, paid_at (a date and time in loc), and the links. edit makes an
// emptied optional field null.
func Financial(v url.Values, loc *time.Location, edit bool) (patio.FinancialInput, error) {
	var p patio.Problems
	in := patio.FinancialInput{Type: text(v, "type", false), Category: text(v, "category", false),
		Description: text(v, "description", false), PaymentMethod: text(v, "payment_method", edit),
		Notes: multiline(v, "notes", edit), Status: text(v, "status", false),
		VehicleID: text(v, "vehicle_id", edit), ClientID: text(v, "client_id", edit), DealID: text(v, "deal_id", edit)}
	if a := text(v, "amount", false); a.Set() {
		c, ok := Amount(a.Value)
		if !ok {
			p.Add(patio.InBody, "amount", "amount must be an amount such as 1234,56")
		}
		in.Amount = patio.Some(c)
	}
	if d := text(v, "due_date", false); d.Set() {
		date, err := patio.ParseDate(d.Value)
		if err != nil {
			p.Add(patio.InBody, "due_date", "due_date must be a date")
		}
		in.DueDate = patio.Some(date)
	}
	if at := text(v, "paid_at", false); at.Set() {
		ts, ok := DateTime(at.Value, loc)
		if !ok {
			p.Add(patio.InBody, "paid_at", "paid_at must be a date and time")
		}
		in.PaidAt = patio.Some(ts)
	}
	if err := in.Validate(time.Time{}); err != nil {
		p.AddError(patio.InBody, "", err)
	}
	return in, p.Err()
}

// Amount reads an amount as a person types it in either language: "1234,56", "1.234,56",
// "1234.56", "1,234.56", "R$ 1.234,56". The last comma or point followed by one or two digits is
// the decimal separator; the others separate thousands.
func Amount(s string) (money.Cents, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "R$"))
	if s == "" {
		return 0, false
	}
	dec := -1
	if i := strings.LastIndexAny(s, ".,"); i >= 0 && len(s)-i-1 >= 1 && len(s)-i-1 <= 2 {
		dec = i
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case i == dec:
			b.WriteByte('.')
		case r == '.' || r == ',' || r == ' ':
		default:
			return 0, false
		}
	}
	c, err := money.Parse(b.String())
	return c, err == nil
}
