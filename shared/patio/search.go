package patio

import (
	"slices"
	"strings"
	"unicode"

	"github.com/patio-dev/patio/shared/br"
)

// Word-prefix search: a list's q keeps the records of which every term
// starts a word of the searched fields. Fields and q are split alike by Words; a plate, CPF or CNPJ
// is one word, its bare stored value, and a plate is a word in each of its spellings (old and
// Mercosul). A plate typed with its dash in a vehicles q is one term (foldPlates).

// Words returns the words of s: accents and case removed (Fold), then cut at every character that
// is not a letter or digit. "GR-Yaris" is [gr yaris]; "maria.souza@exemplo.com" is [maria souza
// exemplo com]; "2.0" is [2 0].
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// searchWords returns the distinct words of fields, and each document (plate, CPF, CNPJ) as one
// word in lower case, sorted.
func searchWords(fields []string, documents ...*string) []string {
	var out []string
	for _, f := range fields {
		out = append(out, Words(f)...)
	}
	for _, d := range documents {
		if d != nil && *d != "" {
			out = append(out, strings.ToLower(*d))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Words returns the words q searches in a vehicle: its title, brand and model, and its plate in
// both spellings when it has two (br.OtherPlate: "xyz9876" and "xyz9i76"), so that q finds it
// typed either way.
func (v Vehicle) Words() []string {
	docs := []*string{v.Plate}
	if v.Plate != nil {
		if other, ok := br.OtherPlate(*v.Plate); ok {
			docs = append(docs, &other)
		}
	}
	return searchWords([]string{v.Title, v.Brand, v.Model}, docs...)
}

// Words returns the words q searches in a client: its name, trade name and email, and its CPF or
// CNPJ.
func (c Client) Words() []string {
	fields := []string{c.Name}
	for _, f := range []*string{c.TradeName, c.Email} {
		if f != nil {
			fields = append(fields, *f)
		}
	}
	return searchWords(fields, c.CPF, c.CNPJ)
}

// Words returns the words q searches in a deal: its title.
func (d Deal) Words() []string { return searchWords([]string{d.Title}) }

// MatchesTerms reports whether every term starts one of words (both as Words gives them).
func MatchesTerms(words, terms []string) bool {
	for _, t := range terms {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, t) }) {
			return false
		}
	}
	return true
}

// foldPlates removes the dash of every whole plate typed with one in q ("xyz-9876", "ABC-1D23",
// standing apart from letters and digits), so that it is one term, as a vehicle's plate is one
// word; any other dash still cuts words apart ("GR-Yaris"). Only a vehicles q is so folded: a
// plate written in a deal's title is words of it, split at its dash like the q that searches it.
func foldPlates(q string) string {
	alnum := func(i int) bool {
		return i >= 0 && i < len(q) && (q[i] >= 0x80 || unicode.IsLetter(rune(q[i])) || unicode.IsDigit(rune(q[i])))
	}
	var b strings.Builder
	last := 0
	for i := 3; i+4 < len(q); i++ {
		if q[i] != '-' || alnum(i-4) || alnum(i+5) {
			continue
		}
		if _, err := br.NormalizePlate(q[i-3 : i+5]); err != nil {
			continue
		}
		b.WriteString(q[last:i])
		last = i + 1
	}
	b.WriteString(q[last:])
	return b.String()
}

// checkSearchParam checks q (at most 200 characters, at least one letter or digit) and returns its
// terms: its words, without those another term starts with (a word that starts with "corolla"
// starts with "cor" too), sorted longest first so that the most selective term comes first. With
// plates (a vehicles q), a whole plate typed with its dash is one term (foldPlates).
func checkSearchParam(p *Problems, q **string, plates bool) []string {
	if *q == nil {
		return nil
	}
	checkTextParam(p, "q", q)
	text := **q
	if plates {
		text = foldPlates(text)
	}
	terms := Words(text)
	if len(terms) == 0 {
		if **q != "" { // an empty q has its problem already
			p.Add(InQuery, "q", "q must contain a letter or digit")
		}
		return nil
	}
	slices.SortFunc(terms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, t := range terms {
		if !slices.ContainsFunc(out, func(kept string) bool { return strings.HasPrefix(kept, t) }) {
			out = append(out, t)
		}
	}
	return out
}
