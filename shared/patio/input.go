package patio

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Opt is one member of a request: absent, explicitly null, or set to Value. PUT is a partial
// update, so the three cases mean "keep", "clear" and "set". The edge (shared/httpapi, the
// operators' tool) fills Opts from what the client sent; the domain validates the values.
type Opt[T any] struct {
	Present bool
	Null    bool
	Value   T
}

// Some returns a member set to v.
func Some[T any](v T) Opt[T] { return Opt[T]{Present: true, Value: v} }

// Null returns a member sent as null.
func Null[T any]() Opt[T] { return Opt[T]{Present: true, Null: true} }

// Set reports whether the member is present with a value (not null).
func (o Opt[T]) Set() bool { return o.Present && !o.Null }

// ParseID returns the canonical form of a UUID and whether s is one.
func ParseID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// The checks below validate one member of a typed input, record what is wrong in p (naming the
// member) and put the value in its stored form. A member that is absent or null passes: whether
// it may be is the resource's rule (required, notNull).

// checkText trims a one-line text member and checks that it has minLen..maxLen characters and no
// control or bidirectional override characters.
func checkText(p *Problems, name string, o *Opt[string], minLen, maxLen int) {
	checkTextOf(p, name, o, minLen, maxLen, false)
}

// checkMultiline is checkText for free text (description, notes), which may hold tabs and
// newlines.
func checkMultiline(p *Problems, name string, o *Opt[string], minLen, maxLen int) {
	checkTextOf(p, name, o, minLen, maxLen, true)
}

func checkTextOf(p *Problems, name string, o *Opt[string], minLen, maxLen int, multiline bool) {
	if !o.Set() {
		return
	}
	if badText(p, InBody, name, o.Value, multiline) {
		return
	}
	s := strings.TrimFunc(o.Value, isBlank)
	n := utf8.RuneCountInString(s)
	switch {
	case n < minLen && minLen == 1:
		p.Add(InBody, name, "%s must not be empty", name)
	case n < minLen:
		p.Add(InBody, name, "%s must have at least %d characters", name, minLen)
	case n > maxLen:
		p.Add(InBody, name, "%s must be at most %d characters", name, maxLen)
	}
	o.Value = s
}

// addReason records the error of a normaliser (shared/br's, normalizeEmail) as a problem of member
// name, sent in in: its text is the reason, after the member's name. The format this makes is in
// the table of messages, so the problem has a code (a test checks every reason the normalisers
// have).
func addReason(p *Problems, in, name string, err error) {
	p.Add(in, name, "%s "+escapeVerbs(err.Error()), name)
}

// escapeVerbs makes a text safe to use as a format: its % signs print as themselves.
func escapeVerbs(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// checkNormalized passes a member through the normaliser of its format (plate, CPF, ...), whose
// error text follows the member's name.
func checkNormalized(p *Problems, name string, o *Opt[string], normalize func(string) (string, error)) {
	if !o.Set() {
		return
	}
	if badText(p, InBody, name, o.Value, false) {
		return
	}
	v, err := normalize(o.Value)
	if err != nil {
		addReason(p, InBody, name, err)
		return
	}
	o.Value = v
}

// checkEnum checks that a member is one of allowed.
func checkEnum(p *Problems, name string, o Opt[string], allowed []string) {
	if o.Set() && !contains(allowed, o.Value) {
		p.Add(InBody, name, "%s must be one of %s", name, strings.Join(allowed, ", "))
	}
}

// checkRange checks that a whole-number member is within [minV, maxV].
func checkRange(p *Problems, name string, o Opt[int], minV, maxV int) {
	if o.Set() && (o.Value < minV || o.Value > maxV) {
		p.Add(InBody, name, "%s must be between %d and %d", name, minV, maxV)
	}
}

// required records a problem when a member is absent or null.
func required[T any](p *Problems, name string, o Opt[T]) {
	if !o.Set() {
		p.Add(InBody, name, "%s is required", name)
	}
}

// notNull records a problem when a member that may not be cleared is null.
func notNull[T any](p *Problems, name string, o Opt[T]) {
	if o.Present && o.Null {
		p.Add(InBody, name, "%s must not be null", name)
	}
}

// apply sets *dst from o: a value sets it, null clears it, absence keeps it.
func apply[T any](dst **T, o Opt[T]) {
	switch {
	case !o.Present:
	case o.Null:
		*dst = nil
	default:
		*dst = ptr(o.Value)
	}
}

// setIf sets *dst when the member is present with a value.
func setIf[T any](dst *T, o Opt[T]) {
	if o.Set() {
		*dst = o.Value
	}
}

// setAs sets *dst to o's value as a type of its own (a status) when o is set.
func setAs[S ~string](dst *S, o Opt[string]) {
	if o.Set() {
		*dst = S(o.Value)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// isBlank reports white space and the zero-width characters that show as nothing: a required text
// made only of them is empty.
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\ufeff'
}

// badText records a problem of member name, sent in in, and reports true when its text s may not
// be stored: it holds a control character (tab and newline allowed in multiline text) or a
// bidirectional override or isolate, which can make text display as something other than what it
// is (U+202A–U+202E, U+2066–U+2069).
func badText(p *Problems, in, name, s string, multiline bool) bool {
	for _, r := range s {
		switch {
		case multiline && (r == '\t' || r == '\n'):
		case unicode.IsControl(r):
			p.Add(in, name, "%s must not contain control characters", name)
			return true
		case (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			p.Add(in, name, "%s must not contain bidirectional override characters", name)
			return true
		}
	}
	return false
}
