package patio_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{name: "hyphen", in: "GR-Yaris", want: []string{"gr", "yaris"}},
		{name: "email", in: "maria.souza@exemplo.com", want: []string{"maria", "souza", "exemplo", "com"}},
		{name: "decimal", in: "2.0", want: []string{"2", "0"}},
		{name: "accents and case", in: "Citroën  ÁGATA", want: []string{"citroen", "agata"}},
		{name: "letters and digits stay together", in: "HB20 1.0", want: []string{"hb20", "1", "0"}},
		{name: "punctuation only", in: " -/. ", want: []string{}},
		{name: "empty", in: "", want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := patio.Words(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Words(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A record's words are those of its searched fields, and its plate or document as one word in
// lower case; q matches when every term starts one of them.
func TestRecordWords(t *testing.T) {
	plate, cpf, email, trade := "ABC1D23", "52998224725", "maria.souza@exemplo.com", "Auto-Peças Souza"
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{name: "vehicle", got: patio.Vehicle{Title: "Toyota Corolla XEi 2.0 2024", Brand: "Toyota", Model: "Corolla", Plate: &plate}.Words(),
			want: []string{"0", "2", "2024", "abc1323", "abc1d23", "corolla", "toyota", "xei"}},
		{name: "vehicle with an old-format plate: both spellings", got: patio.Vehicle{Title: "Fiat Uno", Brand: "Fiat", Model: "Uno", Plate: ptr("XYZ9876")}.Words(),
			want: []string{"fiat", "uno", "xyz9876", "xyz9i76"}},
		{name: "vehicle with a Mercosul plate of an old spelling", got: patio.Vehicle{Title: "Uno", Brand: "Fiat", Model: "Uno", Plate: ptr("XYZ9I76")}.Words(),
			want: []string{"fiat", "uno", "xyz9876", "xyz9i76"}},
		{name: "vehicle with a Mercosul plate of no old spelling", got: patio.Vehicle{Title: "Uno", Brand: "Fiat", Model: "Uno", Plate: ptr("RIO2K26")}.Words(),
			want: []string{"fiat", "rio2k26", "uno"}},
		{name: "vehicle without plate", got: patio.Vehicle{Title: "GR-Yaris", Brand: "Toyota", Model: "GR-Yaris"}.Words(),
			want: []string{"gr", "toyota", "yaris"}},
		{name: "client", got: patio.Client{Name: "Maria Souza", CPF: &cpf, Email: &email, TradeName: &trade}.Words(),
			want: []string{"52998224725", "auto", "com", "exemplo", "maria", "pecas", "souza"}},
		{name: "deal", got: patio.Deal{Title: "Venda do Corolla à vista"}.Words(),
			want: []string{"a", "corolla", "do", "venda", "vista"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("Words() = %q; want %q", tt.got, tt.want)
			}
		})
	}
}

func TestMatchesTerms(t *testing.T) {
	words := patio.Vehicle{Title: "Toyota Corolla XEi 2.0", Brand: "Toyota", Model: "Corolla", Plate: ptr("ABC1D23")}.Words()
	tests := []struct {
		q    string
		want bool
	}{
		{q: "cor", want: true},
		{q: "rolla", want: false},
		{q: "toy cor", want: true},
		{q: "toy civic", want: false},
		{q: "abc1", want: true},
		{q: "d23", want: false},
		{q: "Corolla XEI 2", want: true},
		{q: "2.0", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if got := patio.MatchesTerms(words, patio.Words(tt.q)); got != tt.want {
				t.Errorf("MatchesTerms(%q, %q) = %v; want %v", words, tt.q, got, tt.want)
			}
		})
	}
}

// q is checked and split into terms the same way on every resource: terms another term starts
// with are dropped, the longest first; a q without a letter or digit is 400.
func TestQueryTerms(t *testing.T) {
	tests := []struct {
		name    string
		q       string
		want    []string
		others  []string // the terms of clients and deals, when not want: only a vehicles q folds plates
		wantErr string
	}{
		{name: "one term", q: "Corolla", want: []string{"corolla"}},
		{name: "longest first", q: "cor toyota xe", want: []string{"toyota", "cor", "xe"}},
		{name: "a term another starts with is dropped", q: "cor corolla c", want: []string{"corolla"}},
		{name: "repeated", q: "gol gol", want: []string{"gol"}},
		{name: "split like the fields", q: "GR-Yaris", want: []string{"yaris", "gr"}},
		{name: "one letter", q: "a", want: []string{"a"}},
		{name: "a plate typed with its dash is one term of a vehicles q", q: "xyz-9876", want: []string{"xyz9876"},
			others: []string{"9876", "xyz"}},
		{name: "a Mercosul plate typed with its dash", q: "Fiat XYZ-9I76", want: []string{"xyz9i76", "fiat"},
			others: []string{"9i76", "fiat", "xyz"}},
		{name: "a plate's dash among other words", q: "uno (abc-1234), gol", want: []string{"abc1234", "gol", "uno"},
			others: []string{"1234", "abc", "gol", "uno"}},
		{name: "not a plate: split at the dash", q: "BMW-3201x", want: []string{"3201x", "bmw"}},
		{name: "not a plate: a word before it", q: "XABC-1234", want: []string{"1234", "xabc"}},
		{name: "no letter or digit", q: "--", wantErr: "q must contain a letter or digit"},
		{name: "blank", q: "  ", wantErr: "q must not be empty"},
		{name: "too long", q: strings.Repeat("a", 201), wantErr: "q must be at most 200 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, check := range []struct {
				resource string
				terms    func(q *string) ([]string, error)
			}{
				{"vehicles", func(q *string) ([]string, error) { c, err := patio.VehicleQuery{Q: q}.Check(); return c.Terms, err }},
				{"clients", func(q *string) ([]string, error) { c, err := patio.ClientQuery{Q: q}.Check(); return c.Terms, err }},
				{"deals", func(q *string) ([]string, error) { c, err := patio.DealQuery{Q: q}.Check(); return c.Terms, err }},
			} {
				q := tt.q
				got, err := check.terms(&q)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Count(err.Error(), "q must") != 1 {
						t.Errorf("%s: Check(q=%q) = %v; want one problem %q", check.resource, tt.q, err, tt.wantErr)
					}
					continue
				}
				want := tt.want
				if tt.others != nil && check.resource != "vehicles" {
					want = tt.others
				}
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Check(q=%q) terms = %q, %v; want %q", check.resource, tt.q, got, err, want)
				}
			}
		})
	}
}

// The module lists' filters naming records must be UUIDs, and their enums known; the overdue views
// narrow the status and the due window.
func TestModuleQueryChecks(t *testing.T) {
	bad := "not-a-uuid"
	id := "0195A000-0000-7000-8000-00000000A101"
	if _, err := (patio.ActivityQuery{VehicleID: &bad}).Check(); err == nil || !strings.Contains(err.Error(), "vehicle_id must be a UUID") {
		t.Errorf("ActivityQuery{vehicle_id: %q}.Check() = %v; want vehicle_id must be a UUID", bad, err)
	}
	q, err := patio.ActivityQuery{DealID: &id}.Check()
	if err != nil || *q.DealID != strings.ToLower(id) {
		t.Errorf("ActivityQuery{deal_id: %q}.Check() = %v, %v; want it lower case", id, q.DealID, err)
	}
	if _, err := (patio.FinancialQuery{PaymentMethod: []string{"pix", "bitcoin"}}).Check(); err == nil ||
		!strings.Contains(err.Error(), "payment_method must be a comma-separated list") {
		t.Errorf("FinancialQuery{payment_method: bitcoin}.Check() = %v; want payment_method refused", err)
	}
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	a, err := patio.ActivityQuery{Overdue: true, Now: now}.Check()
	if err != nil || !reflect.DeepEqual(a.Status, []string{string(patio.ActivityPending), string(patio.ActivityInProgress)}) || a.DueTo.Time() != now {
		t.Errorf("ActivityQuery{overdue}.Check() = status %v, due_to %v, %v; want open activities due by %v", a.Status, a.DueTo, err, now)
	}
	f, err := patio.FinancialQuery{Overdue: true, Today: patio.DateOf(now)}.Check()
	if err != nil || !reflect.DeepEqual(f.Status, []string{string(patio.FinancialPending)}) || f.DueTo.String() != "2026-03-09" {
		t.Errorf("FinancialQuery{overdue}.Check() = status %v, due_to %v, %v; want pending records due by 2026-03-09", f.Status, f.DueTo, err)
	}
}
