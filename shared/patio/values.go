package patio

import (
	"encoding/json"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// TimestampLayout is the one timestamp format of the API: UTC, whole seconds, trailing Z.
const TimestampLayout = "2006-01-02T15:04:05Z"

// DateLayout is the one date format of the API.
const DateLayout = "2006-01-02"

// Timestamp is an instant at whole-second precision that marshals as TimestampLayout.
type Timestamp time.Time

// NewTimestamp truncates t to the second, in UTC.
func NewTimestamp(t time.Time) Timestamp { return Timestamp(t.UTC().Truncate(time.Second)) }

// Time returns the instant as a time.Time.
func (t Timestamp) Time() time.Time { return time.Time(t) }

// String formats the instant as TimestampLayout.
func (t Timestamp) String() string { return time.Time(t).UTC().Format(TimestampLayout) }

// MarshalJSON writes the instant as a JSON string in TimestampLayout.
func (t Timestamp) MarshalJSON() ([]byte, error) { return []byte(`"` + t.String() + `"`), nil }

// UnmarshalJSON reads a JSON string in TimestampLayout.
func (t *Timestamp) UnmarshalJSON(data []byte) error { return unmarshalText(data, t, ParseTimestamp) }

// ParseTimestamp reads TimestampLayout.
func ParseTimestamp(s string) (Timestamp, error) {
	t, err := time.Parse(TimestampLayout, s)
	return Timestamp(t), err
}

// Date is a calendar date without time or zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate reads a YYYY-MM-DD date, rejecting impossible dates such as 2026-02-30.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, err
	}
	return DateOf(t), nil
}

// DateOf returns the UTC calendar date of t.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Date{Year: y, Month: m, Day: d}
}

// Start returns midnight UTC at the start of the date.
func (d Date) Start() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// String formats the date as YYYY-MM-DD.
func (d Date) String() string { return d.Start().Format(DateLayout) }

// MarshalJSON writes the date as a JSON string.
func (d Date) MarshalJSON() ([]byte, error) { return []byte(`"` + d.String() + `"`), nil }

// UnmarshalJSON reads a JSON string in DateLayout.
func (d *Date) UnmarshalJSON(data []byte) error { return unmarshalText(data, d, ParseDate) }

// unmarshalText decodes a JSON string into *dst with parse.
func unmarshalText[T any](data []byte, dst *T, parse func(string) (T, error)) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	v, err := parse(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// Fold returns s in the form text sorts and searches use: accents removed, lower case, inner runs of
// white space collapsed to one space. "Ágata  Çelik" folds to "agata celik".
func Fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.Join(strings.Fields(strings.ToLower(out)), " ")
}

// errEmail is the reason of every invalid email address, to follow the field name.
var errEmail = errors.New("must be a valid address")

// normalizeEmail validates an email address (an RFC 5322 address of at most 254 characters, without
// a display name) and returns it without surrounding white space or angle brackets.
func normalizeEmail(s string) (string, error) {
	addr, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil || addr.Name != "" || len(addr.Address) > 254 {
		return "", errEmail
	}
	return addr.Address, nil
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
