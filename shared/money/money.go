// Package money holds exact amounts of Brazilian reais as integer cents.
//
// Amounts never pass through float64: they are parsed from the JSON number's text with a decimal type
// and printed from the integer, so what goes in comes out numerically equal.
package money

import (
	"errors"
	"strconv"

	"github.com/shopspring/decimal"
)

// Max is the largest accepted amount: 999999999.99.
const Max Cents = 99999999999

// Cents is an amount in integer cents. It marshals to a JSON number with at most two decimals.
type Cents int64

var hundred = decimal.NewFromInt(100)

// ErrFormat is returned by Parse for text that is not a number with at most two decimal places
// between 0 and 999999999.99.
var ErrFormat = errors.New("must be a number from 0 to 999999999.99 with at most 2 decimal places")

// Parse reads a JSON number literal (such as `19999.99`, `0.1` or `1e3`) into exact cents.
// It returns ErrFormat for anything else: strings, more than two decimals, negatives, or amounts
// over Max.
func Parse(text string) (Cents, error) {
	// No valid amount needs more than 40 characters, and the decimal parser's cost grows faster
	// than the text: refuse long input before parsing it.
	if text == "" || len(text) > 40 || text[0] == '"' || text[0] == '+' {
		return 0, ErrFormat
	}
	d, err := decimal.NewFromString(text)
	if err != nil {
		return 0, ErrFormat
	}
	c := d.Mul(hundred)
	if !c.IsInteger() || c.Sign() < 0 || c.GreaterThan(decimal.NewFromInt(int64(Max))) {
		return 0, ErrFormat
	}
	return Cents(c.IntPart()), nil
}

// String returns the amount as a decimal number with no trailing zeros: 19999.99, 0.1, 5.
func (c Cents) String() string {
	neg := c < 0
	if neg {
		c = -c
	}
	whole := strconv.FormatInt(int64(c/100), 10)
	frac := int64(c % 100)
	s := whole
	switch {
	case frac == 0:
	case frac%10 == 0:
		s += "." + strconv.FormatInt(frac/10, 10)
	default:
		s += "." + strconv.FormatInt(frac/10, 10) + strconv.FormatInt(frac%10, 10)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// MarshalJSON writes the amount as a JSON number.
func (c Cents) MarshalJSON() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalJSON reads a JSON number as Parse does.
func (c *Cents) UnmarshalJSON(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
