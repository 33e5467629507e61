package form_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// An amount is read as people type it: the page's language decides the marks, and only an amount
// that the two languages read differently, neither reading impossible, is refused with both.
func TestAmount(t *testing.T) {
	both := []string{locale.PtBR, locale.En}
	for _, tc := range []struct {
		in    string
		langs []string
		want  money.Cents
		err   error
	}{
		{"84.990,90", both, 8499090, nil},
		{"84990,90", both, 8499090, nil},
		{"R$ 84.990,90", both, 8499090, nil},
		{"R$\u00a084.990,90", both, 8499090, nil},
		{"84,990.90", both, 8499090, nil},
		{"84990.90", both, 8499090, nil}, // a single mark and two digits: decimal in either language
		{"1.234.567,8", both, 123456780, nil},
		{"1,234,567", both, 123456700, nil},
		{"1.234.567", both, 123456700, nil},
		{"1,5", both, 150, nil},
		{"1.50", both, 150, nil},
		{"1234", both, 123400, nil},
		{"0,05", both, 5, nil},
		{"1,505", both, 150500, nil}, // three decimals are no money: only the thousands reading is one
		{"1.505", both, 150500, nil},
		{"0,500", both, 50, nil}, // "0" groups no thousands: only the decimal reading is one
		// The page's thousands mark followed by three digits groups thousands, as people mean it.
		{"45.000", []string{locale.PtBR}, 4500000, nil},
		{"R$ 2.500", []string{locale.PtBR}, 250000, nil},
		{"50.000", []string{locale.PtBR}, 5000000, nil},
		{"1.500", []string{locale.PtBR}, 150000, nil},
		{"1,500", []string{locale.En}, 150000, nil},
		{"45,000", []string{locale.En}, 4500000, nil},
		{"-10", both, 0, form.ErrNegativeAmount},
		{"R$ -10,00", both, 0, form.ErrNegativeAmount},
		{"", both, 0, form.ErrAmountFormat},
		{"abc", both, 0, form.ErrAmountFormat},
		{"1,2345", both, 0, form.ErrAmountFormat},
		{"1.23.45", both, 0, form.ErrAmountFormat},
		{"1.234,56,7", both, 0, form.ErrAmountFormat},
		{"12,34.56", both, 0, form.ErrAmountFormat},
		{"1,", both, 0, form.ErrAmountFormat},
		{"1234.567", both, 0, form.ErrAmountFormat}, // four digits group no thousands, three decimals are no money
	} {
		for _, lang := range tc.langs {
			got, err := form.Amount(tc.in, lang)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("Amount(%q, %s) = %v, %v; want %v, %v", tc.in, lang, got, err, tc.want, tc.err)
			}
		}
	}
	// The page's decimal mark followed by three digits reads two ways.
	for _, tc := range []struct {
		in, lang          string
		thousands, twoDec money.Cents
	}{
		{"1,500", locale.PtBR, 150000, 150},
		{"12,340", locale.PtBR, 1234000, 1234},
		{"R$ 1,500", locale.PtBR, 150000, 150},
		{"1.500", locale.En, 150000, 150},
		{"R$ 2.500", locale.En, 250000, 250},
	} {
		_, err := form.Amount(tc.in, tc.lang)
		var amb *form.AmbiguousAmount
		if !errors.As(err, &amb) || amb.Thousands != tc.thousands || amb.Decimal != tc.twoDec {
			t.Errorf("Amount(%q, %s) = %v; want it refused as %v or %v", tc.in, tc.lang, err, tc.thousands, tc.twoDec)
		}
	}
}

// A money field or filter the form cannot read has one problem, that one: not also the domain's
// problem of the value that stood in for it ("must be above zero").
func TestAmountOneProblem(t *testing.T) {
	record := url.Values{"type": {"revenue"}, "category": {"venda-veiculo"}, "description": {"Venda"}, "due_date": {"2026-12-10"}}
	for _, tc := range []struct {
		amount, lang, code string
	}{
		{"abc", locale.PtBR, "must_be_amount_such_as"},
		{"1,500", locale.PtBR, "amount_reads_two_ways"},
		{"1.500", locale.En, "amount_reads_two_ways"},
		{"-5", locale.PtBR, "negative"},
	} {
		v := url.Values{"amount": {tc.amount}}
		for k, vs := range record {
			v[k] = vs
		}
		_, err := form.Financial(v, time.UTC, tc.lang, false)
		if got := problemsOf(err, "amount"); len(got) != 1 || got[0] != tc.code {
			t.Errorf("Financial(amount %q, %s) problems of amount = %q; want only %s", tc.amount, tc.lang, got, tc.code)
		}
	}
	if in, err := form.Financial(url.Values{"amount": {"R$ 2.500"}}, time.UTC, locale.PtBR, false); in.Amount.Value != 250000 ||
		len(problemsOf(err, "amount")) != 0 {
		t.Errorf("Financial(amount R$ 2.500, pt-BR) = %v, problems %q; want R$ 2.500,00 and no problem of it", in.Amount, problemsOf(err, "amount"))
	}
	_, err := form.VehicleQuery(url.Values{"price_min": {"abc"}, "price_max": {"50.000"}}, locale.PtBR, 20)
	if got := problemsOf(err, "price_min"); len(got) != 1 || len(problemsOf(err, "price_max")) != 0 {
		t.Errorf("VehicleQuery(price_min abc, price_max 50.000) problems %v; want one of price_min alone", err)
	}
	q, err := form.VehicleQuery(url.Values{"price_max": {"50.000"}}, locale.PtBR, 20)
	if err != nil || q.PriceMax == nil || *q.PriceMax != 5000000 {
		t.Errorf("VehicleQuery(price_max 50.000, pt-BR) = %v, %v; want R$ 50.000,00", q.PriceMax, err)
	}
}

// problemsOf returns the codes of err's problems of field.
func problemsOf(err error, field string) []string {
	var e *patio.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, d := range e.Details {
		if d.Field == field {
			out = append(out, strings.TrimSpace(d.Code))
		}
	}
	return out
}
