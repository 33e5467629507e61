package form_test

import (
	"errors"
	"testing"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/money"
)

func TestAmount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want money.Cents
		err  error
	}{
		{"84.990,90", 8499090, nil},
		{"84990,90", 8499090, nil},
		{"R$ 84.990,90", 8499090, nil},
		{"R$\u00a084.990,90", 8499090, nil},
		{"84,990.90", 8499090, nil},
		{"84990.90", 8499090, nil},
		{"1.234.567,8", 123456780, nil},
		{"1,234,567", 123456700, nil},
		{"1.234.567", 123456700, nil},
		{"1,5", 150, nil},
		{"1.50", 150, nil},
		{"1234", 123400, nil},
		{"0,05", 5, nil},
		{"1,505", 150500, nil}, // three decimals are no money: only the thousands reading is one
		{"-10", 0, form.ErrNegativeAmount},
		{"R$ -10,00", 0, form.ErrNegativeAmount},
		{"", 0, form.ErrAmountFormat},
		{"abc", 0, form.ErrAmountFormat},
		{"1,2345", 0, form.ErrAmountFormat},
		{"1.23.45", 0, form.ErrAmountFormat},
		{"1.234,56,7", 0, form.ErrAmountFormat},
		{"12,34.56", 0, form.ErrAmountFormat},
		{"1,", 0, form.ErrAmountFormat},
		{"0,500", 0, form.ErrAmountFormat},
	} {
		got, err := form.Amount(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("Amount(%q) = %v, %v; want %v, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	for _, tc := range []struct {
		in                string
		thousands, twoDec money.Cents
	}{{"1,500", 150000, 150}, {"1.500", 150000, 150}, {"12,340", 1234000, 1234}, {"R$ 1.500", 150000, 150}} {
		_, err := form.Amount(tc.in)
		var amb *form.AmbiguousAmount
		if !errors.As(err, &amb) || amb.Thousands != tc.thousands || amb.Decimal != tc.twoDec {
			t.Errorf("Amount(%q) = %v; want it refused as %v or %v", tc.in, err, tc.thousands, tc.twoDec)
		}
	}
}
