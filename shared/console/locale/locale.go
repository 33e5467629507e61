// Package locale is the console's two languages: Brazilian Portuguese (the default) and English,
// from one message catalog per language (translations/pt_BR.json, en.json, which a test keeps
// holding the same keys), and the formats of money, dates and times in each.
//
// The domain's problems (patio.Error, patio.FieldError) reach the console as a code with its
// arguments; Printer.Error and Printer.Problem show them from the catalog's problem.<code> in
// either language, never reading their English message (a test keeps every code of patio.Messages
// in both catalogs).
package locale

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The languages.
const (
	PtBR = "pt-BR"
	En   = "en"
)

// Languages lists the languages, the default first.
var Languages = []string{PtBR, En}

//go:embed translations/*.json
var files embed.FS

// catalogs are the languages' messages, each parsed on its first use (a cold start parses the one
// it speaks) or by Prepare.
var catalogs = map[string]func() map[string]string{
	PtBR: sync.OnceValue(func() map[string]string { return mustLoad("pt_BR.json") }),
	En:   sync.OnceValue(func() map[string]string { return mustLoad("en.json") }),
}

// catalog returns a language's messages (nil for an unknown language).
func catalog(lang string) map[string]string {
	if load := catalogs[lang]; load != nil {
		return load()
	}
	return nil
}

// Prepare parses every language's catalog now (a request can do it while it waits on DynamoDB).
func Prepare() {
	for _, load := range catalogs {
		load()
	}
}

func mustLoad(name string) map[string]string {
	data, err := files.ReadFile("translations/" + name)
	if err != nil {
		panic(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("locale: %s: %v", name, err))
	}
	return m
}

// Keys returns the keys of a language's catalog (for the catalog's own tests).
func Keys(lang string) []string {
	out := make([]string, 0, len(catalog(lang)))
	for k := range catalog(lang) {
		out = append(out, k)
	}
	return out
}

// Supported returns lang when it is one of Languages, else "".
func Supported(lang string) string {
	for _, l := range Languages {
		if strings.EqualFold(l, lang) {
			return l
		}
	}
	return ""
}

// byPrimary maps a language tag's primary subtag to the language of the console that speaks it.
var byPrimary = map[string]string{"pt": PtBR, "en": En}

// Negotiate picks a language from an Accept-Language header: English when the browser prefers
// English to Portuguese, Portuguese otherwise (any Portuguese variant, and when neither is
// accepted). Of the header's languages only the primary subtag matters, weighed by its q (1 when
// absent; 0, or malformed, is "not acceptable"); on a tie the one listed first wins.
func Negotiate(acceptLanguage string) string {
	best, bestQ := PtBR, 0.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(part, ";")
		primary, _, _ := strings.Cut(strings.NewReplacer("_", "-").Replace(strings.TrimSpace(tag)), "-")
		lang := byPrimary[strings.ToLower(primary)]
		if q := quality(params); lang != "" && q > bestQ {
			best, bestQ = lang, q
		}
	}
	return best
}

// quality is the q parameter of a language range's parameters ("q=0.8"): 1 when absent, 0 when
// malformed, at most 1.
func quality(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || q < 0 {
				return 0
			}
			return min(q, 1)
		}
	}
	return 1
}

// Printer speaks one language, and shows times in one time zone.
type Printer struct {
	Lang string
	Loc  *time.Location
}

// New returns the printer of lang (the default for an unknown one) in the time zone loc (UTC when
// nil).
func New(lang string, loc *time.Location) Printer {
	if Supported(lang) == "" {
		lang = PtBR
	}
	if loc == nil {
		loc = time.UTC
	}
	return Printer{Lang: Supported(lang), Loc: loc}
}

// T returns the message key formatted with args; a key the catalog lacks is shown as it is (the
// catalog test keeps that from happening).
func (p Printer) T(key string, args ...any) string {
	msg, ok := catalog(p.Lang)[key]
	if !ok {
		msg = key
	}
	if len(args) == 0 {
		return msg
	}
	return fmt.Sprintf(msg, args...)
}

// Error returns the message of an error for a person to read: a domain error's message in the
// printer's language, and a generic sentence for anything internal or a service briefly unavailable.
func (p Printer) Error(err error) string {
	var e *patio.Error
	if !errors.As(err, &e) || e.Kind == patio.KindInternal || patio.KindOf(err) == patio.KindUnavailable {
		return p.T("error.internal")
	}
	return p.problem(e.Message, e.Code, e.Args)
}

// Problem returns one field's problem in the printer's language, the field named by its label
// (field.<name> in the catalog) and amounts written as the language writes them.
func (p Printer) Problem(fe patio.FieldError) string {
	return p.problem(fe.Message, fe.Code, fe.Args)
}

// args returns a message's arguments as the printer shows them: an amount in the language's
// money format, a field (the problem's own, or the other end of its range) by its label.
func (p Printer) args(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		switch v := a.(type) {
		case money.Cents:
			out[i] = p.Money(v)
		case string:
			if label, ok := p.label(v); ok {
				out[i] = label
				break
			}
			// A list of values ("funilaria, mecanica"): each by its label, when every one has one.
			if parts := strings.Split(v, ", "); len(parts) > 1 {
				labels := make([]string, len(parts))
				all := true
				for j, part := range parts {
					var ok bool
					labels[j], ok = p.label(part)
					all = all && ok
				}
				if all {
					out[i] = strings.Join(labels, ", ")
				}
			}
		}
	}
	return out
}

// label returns the label of a field or a value people choose from (valueKeys).
func (p Printer) label(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	for _, prefix := range valueKeys {
		if label, ok := catalog(p.Lang)[prefix+v]; ok {
			return label, true
		}
	}
	return "", false
}

// valueKeys are the catalogs' prefixes a message's argument is looked up under, in order: a
// field's label, then the names of the values people choose from ("expense" → "despesa").
var valueKeys = []string{"field.", "financial.type.", "financial.category.", "financial.status.", "activity.type.",
	"activity.status.", "payment."}

// ProblemKey is the catalog key of the domain's message code.
func ProblemKey(code string) string { return "problem." + code }

// problem formats the catalog's message of code with args; a message without a code, or one the
// catalog lacks (the catalog test keeps that from happening), is msg as it was written.
func (p Printer) problem(msg, code string, args []any) string {
	format, ok := catalog(p.Lang)[ProblemKey(code)]
	if code == "" || !ok {
		return msg
	}
	return fmt.Sprintf(format, p.args(args)...)
}

// Money formats an amount: "R$ 1.234,56" in Portuguese (a non-breaking space after R$), "R$1,234.56"
// in English.
func (p Printer) Money(c money.Cents) string {
	neg := c < 0
	if neg {
		c = -c
	}
	whole, cents := int64(c)/100, int64(c)%100
	digits := fmt.Sprint(whole)
	sep, dec, prefix := ",", ".", "R$"
	if p.Lang == PtBR {
		sep, dec, prefix = ".", ",", "R$\u00a0" // never split from its number
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(d)
	}
	out := fmt.Sprintf("%s%s%s%02d", prefix, b.String(), dec, cents)
	if neg {
		out = "-" + out
	}
	return out
}

// Decimal formats an amount without currency, as a spreadsheet in the language reads it:
// "1234,56" in Portuguese, "1234.56" in English.
func (p Printer) Decimal(c money.Cents) string {
	s := c.String()
	if !strings.Contains(s, ".") {
		s += ".00"
	} else if len(s)-strings.Index(s, ".") == 2 {
		s += "0"
	}
	if p.Lang == PtBR {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// Date formats a calendar date: dd/mm/aaaa in Portuguese, "Jan 2, 2006" in English.
func (p Printer) Date(d patio.Date) string {
	if p.Lang == PtBR {
		return d.Start().Format("02/01/2006")
	}
	return d.Start().Format("Jan 2, 2006")
}

// Time formats an instant in the printer's time zone: "02/01/2006 15:04" in Portuguese,
// "Jan 2, 2006 15:04" in English; the zero time is "—".
func (p Printer) Time(t time.Time) string { return p.instant(t, "15:04") }

// Seconds is Time with the seconds: "02/01/2006 15:04:05", "Jan 2, 2006 15:04:05".
func (p Printer) Seconds(t time.Time) string { return p.instant(t, "15:04:05") }

func (p Printer) instant(t time.Time, clock string) string {
	if t.IsZero() {
		return "—"
	}
	t = t.In(p.Loc)
	if p.Lang == PtBR {
		return t.Format("02/01/2006 " + clock)
	}
	return t.Format("Jan 2, 2006 " + clock)
}

// Duration formats a short duration in milliseconds ("123 ms").
func (p Printer) Duration(d time.Duration) string {
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// Number formats an integer with the language's thousands separator.
func (p Printer) Number(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	sep := ","
	if p.Lang == PtBR {
		sep = "."
	}
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(d)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
