package form

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
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
			return patio.Null[string]()
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
		in.DueAt = patio.Null[patio.Timestamp]()
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
// (money as people type it on a page in lang: Amount), due_date (YYYY-MM-DD), payment_method,
// notes, status, paid_at (a date and time in loc), and the links. edit makes an emptied optional
// field null. A field it could not read has that problem alone: the domain's checks of the value
// that stood in for it are left out.
func Financial(v url.Values, loc *time.Location, lang string, edit bool) (patio.FinancialInput, error) {
	var p patio.Problems
	in := patio.FinancialInput{Type: text(v, "type", false), Category: text(v, "category", false),
		Description: text(v, "description", false), PaymentMethod: text(v, "payment_method", edit),
		Notes: multiline(v, "notes", edit), Status: text(v, "status", false),
		VehicleID: text(v, "vehicle_id", edit), ClientID: text(v, "client_id", edit), DealID: text(v, "deal_id", edit)}
	in.Amount = amount(&p, v, "amount", lang, false)
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
		p.AddOthers(patio.InBody, err)
	}
	return in, p.Err()
}

// Amount reads an amount as a person types it on a page in lang (locale.PtBR or locale.En): the
// page's language decides the marks. In Portuguese "." groups thousands and "," is the decimal
// mark ("84.990,90", "84990,90", "R$ 84.990,90", "45.000", "R$ 2.500"); in English the reverse
// ("84,990.90", "84990.90", "1,500"). A single mark followed by one or two digits is a decimal
// mark in either language ("84990.90" on a Portuguese page); several of one mark, or both kinds
// with the last one once, read one way only. An amount the page's language cannot read is read as
// the other language reads it ("1,505" on a Portuguese page: no amount has three decimals, so it
// is a thousand five hundred and five). Only an amount that the page's language reads one way and
// the other language another, neither impossible ("1,500" on a Portuguese page, "1.500" on an
// English one), is refused with both readings (AmbiguousAmount), never guessed. A negative amount
// is refused as such (ErrNegativeAmount), anything else that is no amount with ErrAmountFormat.
func Amount(s, lang string) (money.Cents, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	s = strings.TrimSpace(strings.TrimPrefix(s, "R$"))
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "\u2212") {
		return 0, ErrNegativeAmount
	}
	s = strings.ReplaceAll(s, " ", "")
	if s == "" || strings.Trim(s, "0123456789.,") != "" || !isDigit(s[0]) || !isDigit(s[len(s)-1]) {
		return 0, ErrAmountFormat
	}
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	last := strings.LastIndexAny(s, ".,")
	whole, frac := s, ""
	switch {
	case dots+commas == 0:
	case dots > 0 && commas > 0:
		// Both kinds: the last one is the decimal separator, and must appear once.
		if strings.Count(s, s[last:last+1]) != 1 {
			return 0, ErrAmountFormat
		}
		whole, frac = s[:last], s[last+1:]
	case dots+commas == 1 && len(s)-last-1 == 3:
		return oneMarkOfThree(s, last, lang)
	case dots+commas == 1 && len(s)-last-1 <= 2:
		whole, frac = s[:last], s[last+1:]
	}
	// What is left of the whole part separates thousands with the other kind, in groups of three.
	groups := strings.FieldsFunc(whole, func(r rune) bool { return r == '.' || r == ',' })
	for i, g := range groups {
		if g == "" || (i > 0 && len(g) != 3) || (i == 0 && len(groups) > 1 && len(g) > 3) {
			return 0, ErrAmountFormat
		}
	}
	if frac != "" && (len(frac) > 2 || strings.ContainsAny(frac, ".,")) {
		return 0, ErrAmountFormat
	}
	digits := strings.Join(groups, "")
	if frac != "" {
		digits += "." + frac
	}
	c, err := money.Parse(digits)
	if err != nil {
		return 0, ErrAmountFormat
	}
	return c, nil
}

// oneMarkOfThree reads an amount with a single mark, at last, followed by three digits ("1.500",
// "1,500"), on a page in lang. Read as thousands, its whole part must be one to three digits and
// not "0"; read as a decimal mark, its third decimal must be 0 (no amount of money has a third
// decimal). The page's thousands mark reads as thousands ("45.000" in Portuguese); the page's
// decimal mark reads two ways when both readings are possible ("1,500" in Portuguese: R$ 1,50 as
// the page reads it, R$ 1.500,00 as an English reader means it), else the possible one.
func oneMarkOfThree(s string, last int, lang string) (money.Cents, error) {
	head, tail := s[:last], s[last+1:]
	thousands, terr := money.Parse(head + tail)
	thousandsOK := terr == nil && len(head) <= 3 && head != "0"
	decimal, derr := money.Parse(head + "." + tail[:2])
	decimalOK := derr == nil && tail[2] == '0'
	pageDecimal := (s[last] == '.') == (lang == locale.En)
	switch {
	case thousandsOK && decimalOK && pageDecimal:
		return 0, &AmbiguousAmount{Thousands: thousands, Decimal: decimal}
	case thousandsOK:
		return thousands, nil
	case decimalOK:
		return decimal, nil
	}
	return 0, ErrAmountFormat
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// ErrAmountFormat is an amount that is not a number of reais and centavos.
var ErrAmountFormat = errors.New("not an amount")

// ErrNegativeAmount is an amount below zero.
var ErrNegativeAmount = errors.New("negative amount")

// AmbiguousAmount is an amount that reads two ways: "1,500" is Thousands (R$ 1.500,00) with the
// comma as a thousands separator and Decimal (R$ 1,50) with it as the decimal separator.
type AmbiguousAmount struct {
	Thousands, Decimal money.Cents
}

// Error names both readings of the amount.
func (a *AmbiguousAmount) Error() string {
	return fmt.Sprintf("ambiguous amount: %s or %s", a.Thousands, a.Decimal)
}

// amount reads a money field as people type it on a page in lang (Amount); clearable makes an
// emptied one null. A text Amount refuses is a problem of the field.
func amount(p *patio.Problems, v url.Values, name, lang string, clearable bool) patio.Opt[money.Cents] {
	o := text(v, name, clearable)
	if !o.Set() {
		return patio.Opt[money.Cents]{Present: o.Present, Null: o.Null}
	}
	c, err := Amount(o.Value, lang)
	if err != nil {
		amountProblem(p, patio.InBody, name, err)
	}
	return patio.Some(c)
}

// date reads a date field as a date input sends it (YYYY-MM-DD); clearable makes an emptied one
// null.
func date(p *patio.Problems, v url.Values, name string, clearable bool) patio.Opt[patio.Date] {
	o := text(v, name, clearable)
	if !o.Set() {
		return patio.Opt[patio.Date]{Present: o.Present, Null: o.Null}
	}
	d, err := patio.ParseDate(o.Value)
	if err != nil {
		p.Add(patio.InBody, name, "%s must be a date in the form YYYY-MM-DD", name)
	}
	return patio.Some(d)
}

// amountFilters reads a list's money filters (empty: any), typed on a page in lang, into their
// query members.
func amountFilters(p *patio.Problems, q url.Values, lang string, dst map[string]**money.Cents) {
	for name, d := range dst {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			c, err := Amount(v, lang)
			if err != nil {
				amountProblem(p, patio.InQuery, name, err)
				continue
			}
			*d = &c
		}
	}
}

// amountProblem records the problem of a money field whose text Amount refused.
func amountProblem(p *patio.Problems, in, field string, err error) {
	var amb *AmbiguousAmount
	switch {
	case errors.As(err, &amb):
		p.Add(in, field, "%s reads two ways, %s or %s: type it with its cents", field, amb.Thousands, amb.Decimal)
	case errors.Is(err, ErrNegativeAmount):
		p.Add(in, field, "%s must not be negative", field)
	default:
		p.Add(in, field, "%s must be an amount such as %s", field, money.Cents(123456))
	}
}
