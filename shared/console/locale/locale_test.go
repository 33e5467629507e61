package locale_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestCatalogsHoldTheSameKeys: a message that exists in one language only fails the build.
func TestCatalogsHoldTheSameKeys(t *testing.T) {
	pt, en := locale.Keys(locale.PtBR), locale.Keys(locale.En)
	for _, k := range pt {
		if !slices.Contains(en, k) {
			t.Errorf("%q is in Portuguese only", k)
		}
	}
	for _, k := range en {
		if !slices.Contains(pt, k) {
			t.Errorf("%q is in English only", k)
		}
	}
	if len(pt) < 100 {
		t.Errorf("the catalog holds %d messages; the parse lost some", len(pt))
	}
}

// TestCatalogFormats: a message and its translation take the same arguments.
func TestCatalogFormats(t *testing.T) {
	for _, k := range locale.Keys(locale.PtBR) {
		p, e := locale.New(locale.PtBR, nil).T(k), locale.New(locale.En, nil).T(k)
		if strings.Count(p, "%") != strings.Count(e, "%") {
			t.Errorf("%q: %q and %q take different arguments", k, p, e)
		}
	}
}

func TestFormats(t *testing.T) {
	sp, _ := time.LoadLocation("America/Sao_Paulo")
	at := time.Date(2026, 3, 5, 18, 30, 0, 0, time.UTC)
	tests := []struct {
		lang                       string
		money, decimal, date, when string
	}{
		{locale.PtBR, "R$\u00a01.234,56", "1234,56", "05/03/2026", "05/03/2026 15:30"},
		{locale.En, "R$1,234.56", "1234.56", "Mar 5, 2026", "Mar 5, 2026 15:30"},
	}
	for _, tt := range tests {
		p := locale.New(tt.lang, sp)
		if got := p.Money(money.Cents(123456)); got != tt.money {
			t.Errorf("%s Money(1234.56) = %q; want %q", tt.lang, got, tt.money)
		}
		if got := p.Decimal(money.Cents(123456)); got != tt.decimal {
			t.Errorf("%s Decimal(1234.56) = %q; want %q", tt.lang, got, tt.decimal)
		}
		if got := p.Date(patio.DateOf(at)); got != tt.date {
			t.Errorf("%s Date = %q; want %q", tt.lang, got, tt.date)
		}
		if got := p.Time(at); got != tt.when {
			t.Errorf("%s Time (in São Paulo) = %q; want %q", tt.lang, got, tt.when)
		}
	}
	if got := locale.New(locale.PtBR, nil).Money(money.Cents(5)); got != "R$\u00a00,05" {
		t.Errorf("Money(0.05) = %q; want R$ 0,05", got)
	}
}

func TestNegotiate(t *testing.T) {
	for header, want := range map[string]string{
		"": locale.PtBR, "pt-BR,pt;q=0.9": locale.PtBR, "en-US,en;q=0.9": locale.En, "pt-PT": locale.PtBR,
		"de-DE": locale.PtBR, "fr,en;q=0.5": locale.En, "garbage;;": locale.PtBR, "*": locale.PtBR,
		// The preferred of the two wins, whatever the order; a tie goes to the first listed.
		"en;q=0.5, pt-PT": locale.PtBR, "en-US;q=0.9, pt-BR": locale.PtBR, "es, en;q=0.8": locale.En,
		"en-US,en;q=0.9,pt-BR;q=0.8": locale.En, "pt-BR;q=0.8,en;q=0.8": locale.PtBR, "en;q=0.8,pt-BR;q=0.8": locale.En,
		// q=0 is "not acceptable"; a malformed q counts as 0; upper case and underscores are read.
		"en;q=0": locale.PtBR, "pt;q=0, en;q=0.1": locale.En, "en;q=abc": locale.PtBR, "EN-us": locale.En, "en_US": locale.En,
	} {
		if got := locale.Negotiate(header); got != want {
			t.Errorf("Negotiate(%q) = %q; want %q", header, got, want)
		}
	}
}

// TestDomainMessagesInPortuguese: a domain error is shown from its code's message in the
// printer's language, arguments and all; in English too the console names a field as its page
// does, not by the API's member name.
func TestDomainMessagesInPortuguese(t *testing.T) {
	err := patio.Invalidf("url must be at most %d characters", 2048)
	if got := locale.New(locale.PtBR, nil).Error(err); got != "a URL pode ter no máximo 2048 caracteres" {
		t.Errorf("pt-BR = %q", got)
	}
	if got := locale.New(locale.En, nil).Error(err); got != "the URL must be at most 2048 characters" {
		t.Errorf("en = %q; want the URL by its name on the page", got)
	}
	won := patio.Invalidf("vehicle_id is required to win a deal")
	if got := locale.New(locale.En, nil).Error(won); strings.Contains(got, "vehicle_id") {
		t.Errorf("en = %q; want the vehicle named as the page names it", got)
	}
	if got := locale.New(locale.PtBR, nil).Error(patio.Internal(nil)); strings.Contains(got, "internal error") || got == "" {
		t.Errorf("an internal error reads %q; want the generic sentence", got)
	}
	// A message outside patio's table has no code: it is shown as it was written.
	if got := locale.New(locale.PtBR, nil).Error(patio.Conflictf("já traduzido: %s", "x")); got != "já traduzido: x" {
		t.Errorf("a message without a code reads %q", got)
	}
}

// TestEveryCodeInBothCatalogs: every code of the domain's messages has its message in each
// language, taking the arguments of its English format, and the catalogs hold no message of a
// code that is gone.
func TestEveryCodeInBothCatalogs(t *testing.T) {
	msgs := patio.Messages()
	if len(msgs) < 100 {
		t.Fatalf("patio has %d messages; want them all", len(msgs))
	}
	codes := map[string]bool{}
	for _, m := range msgs {
		codes[locale.ProblemKey(m.Code)] = true
		for _, lang := range locale.Languages {
			if !slices.Contains(locale.Keys(lang), locale.ProblemKey(m.Code)) {
				t.Errorf("%s: no %s in the %s catalog (%q)", m.Code, locale.ProblemKey(m.Code), lang, m.Format)
				continue
			}
			if got, want := verbs(locale.New(lang, nil).T(locale.ProblemKey(m.Code))), verbs(m.Format); !slices.Equal(got, want) {
				t.Errorf("%s in %s takes %q; its English format %q takes %q", m.Code, lang, got, m.Format, want)
			}
		}
	}
	for _, lang := range locale.Languages {
		for _, k := range locale.Keys(lang) {
			if strings.HasPrefix(k, locale.ProblemKey("")) && !codes[k] {
				t.Errorf("%s in the %s catalog names no code of patio's", k, lang)
			}
		}
	}
}

// verbs returns the formatting verbs of a format, in order (a %% is none).
func verbs(format string) []string {
	var out []string
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			continue
		}
		i++
		if format[i] != '%' {
			out = append(out, "%"+string(format[i]))
		}
	}
	return out
}

// TestProblemsByCode: a field's problem names the field by its label, in either language, from
// its code; the English one reads as the API's message with the label.
func TestProblemsByCode(t *testing.T) {
	var p patio.Problems
	p.Add(patio.InBody, "vin", "%s must have 17 characters", "vin")
	var e *patio.Error
	if !errors.As(p.Err(), &e) || e.Details[0].Code != "vin_length" {
		t.Fatalf("no code: %+v", e)
	}
	pt, en := locale.New(locale.PtBR, nil).Problem(e.Details[0]), locale.New(locale.En, nil).Problem(e.Details[0])
	if pt == e.Message || en == e.Message || !strings.HasSuffix(en, " must have 17 characters") || !strings.Contains(pt, "17 caracteres") {
		t.Errorf("pt = %q, en = %q; want each from its catalog, the field by its label", pt, en)
	}
}

// A domain problem reads in one language: its field by its label, the values it names by theirs,
// its amounts in the language's format.
func TestProblemInOneLanguage(t *testing.T) {
	pt := locale.New(locale.PtBR, nil)
	var p patio.Problems
	p.Add(patio.InBody, "title", "%s is required", "title")
	p.Add(patio.InBody, "category", "category must be one of %s for type %s", "aluguel, pessoal", "expense")
	p.Add(patio.InBody, "amount", "%s reads two ways, %s or %s: type it with its cents", "amount", money.Cents(150000), money.Cents(150))
	p.Add(patio.InBody, "category", "category must be one of %s for type %s", "higienizacao, documentacao", "cost")
	var e *patio.Error
	if !errors.As(p.Err(), &e) {
		t.Fatal("no error")
	}
	for i, want := range []string{"Título é obrigatório", "para o tipo despesa", "Valor tem duas leituras, R$\u00a01.500,00 ou R$\u00a01,50",
		"uma de higienização, documentação para o tipo custo"} {
		if got := pt.Problem(e.Details[i]); !strings.Contains(got, want) {
			t.Errorf("Problem(%s) = %q; want it to contain %q", e.Details[i].Code, got, want)
		}
	}
}
