package render

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// Form is a form as shown: its values (as entered, when it comes back refused), its problems
// by field, and its one-time token.
type Form struct {
	// Values are the form's fields.
	Values url.Values
	// Problems are the translated problems by field ("" for those of no field).
	Problems map[string][]string
	// Token is the form's one-time token (its form_token field).
	Token string
	// Heading introduces the summary of the problems at the top of a refused form.
	Heading string
	// order is the fields in the order their first problem was found.
	order []string
}

// Problem is one problem as a refused form's summary lists it: the field it is next to ("" for
// none) and its text.
type Problem struct {
	Field, Text string
}

// Summary returns every problem of the form, those of no field first, then by field in the order
// they were found (fields set otherwise after, by name): the list at the top of a refused form,
// each also shown next to its field.
func (f *Form) Summary() []Problem {
	if f == nil {
		return nil
	}
	fields := []string{""}
	fields = append(fields, f.order...)
	var rest []string
	for k := range f.Problems {
		if !slices.Contains(fields, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var out []Problem
	for _, k := range append(fields, rest...) {
		for _, text := range f.Problems[k] {
			out = append(out, Problem{Field: k, Text: text})
		}
	}
	return out
}

// add records a problem of field.
func (f *Form) add(field, text string) {
	if _, ok := f.Problems[field]; !ok && field != "" {
		f.order = append(f.order, field)
	}
	f.Problems[field] = append(f.Problems[field], text)
}

// Value returns a field's value.
func (f *Form) Value(name string) string {
	if f == nil {
		return ""
	}
	return f.Values.Get(name)
}

// Has reports whether a field (a checkbox, a multiple select) holds value.
func (f *Form) Has(name, value string) bool {
	return f != nil && slices.Contains(f.Values[name], value)
}

// ProblemsOf returns a field's problems.
func (f *Form) ProblemsOf(name string) []string {
	if f == nil {
		return nil
	}
	return f.Problems[name]
}

// Invalid reports whether the form has problems.
func (f *Form) Invalid() bool { return f != nil && len(f.Problems) > 0 }

// NewForm returns an empty form with a fresh one-time token.
func NewForm(values url.Values) *Form {
	if values == nil {
		values = url.Values{}
	}
	return &Form{Values: values, Token: NewToken()}
}

// TokenForm returns a form whose one-time token is token (a new-record page's, carried by its
// address), or a fresh one when token is not one of NewToken's.
func TokenForm(values url.Values, token string) *Form {
	f := NewForm(values)
	if ValidToken(token) {
		f.Token = token
	}
	return f
}

// Refused returns the form as entered, with every one of err's problems translated and put next
// to its field (known is the form's fields: a problem of another field is shown at the top only;
// a link's, client_id, is the problem of the text it is found by, client, when the form has that
// field), all of them also in the summary at its top (Summary, introduced by Heading), and the
// one-time token it was sent with (a refused form's token is given back, so the form sent again,
// corrected or by Back and resubmit, still creates at most once), or a new one.
func Refused(p locale.Printer, values url.Values, err error, known ...string) *Form {
	f := TokenForm(values, values.Get("form_token"))
	f.Problems = map[string][]string{}
	f.Heading = p.T("form.problems")
	var e *patio.Error
	if errors.As(err, &e) && len(e.Details) > 0 {
		for _, d := range e.Details {
			field := d.Field
			if text, ok := strings.CutSuffix(field, "_id"); ok && slices.Contains(known, text) {
				field = text
			}
			if !slices.Contains(known, field) {
				field = ""
			}
			f.add(field, p.Problem(d))
		}
		return f
	}
	field := ""
	// A duplicate plate, CPF or CNPJ is the problem of the field that holds it.
	if e != nil && e.Kind == patio.KindDuplicate {
		switch {
		case e.Code == patio.CodePlateDuplicate:
			field = "plate"
		case len(e.Args) > 0:
			if f, ok := e.Args[0].(string); ok && slices.Contains(known, f) {
				field = f
			}
		}
		if !slices.Contains(known, field) {
			field = ""
		}
	}
	// A link that names no record of the team is the link field's problem.
	if e != nil && e.Code == patio.CodeNotOfThisTeam && len(e.Args) == 2 {
		if link, ok := e.Args[0].(string); ok && slices.Contains(known, strings.TrimSuffix(link, "_id")) {
			field = strings.TrimSuffix(link, "_id")
		}
	}
	f.add(field, p.Error(err))
	return f
}

// tokenBytes is how many random bytes a form's token holds.
const tokenBytes = 24

// NewToken returns a random token for a form.
func NewToken() string {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidToken reports whether s has the shape of NewToken's tokens.
func ValidToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == tokenBytes
}
