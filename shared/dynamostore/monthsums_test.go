package dynamostore_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestFinancialMonthSums: the store keeps a team's financial totals by due month, type, category
// and status, moved by every create, edit of amount, type, category or due month, payment and
// cancellation, so that a summary from them is Summarize's over the records; a team with a record
// written before they were kept has none to give (the summary reads the records, and is as
// right) until the backfill adds it.
func TestFinancialMonthSums(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewFinancial(s.Financial(), func(context.Context, string) (patio.Team, error) {
		return patio.Team{TimeZone: patio.DefaultTimeZone}, nil
	})
	sums, ok := s.Financial().(patio.FinancialMonthSums)
	if !ok {
		t.Fatal("the financial store keeps no month sums")
	}
	date := func(m time.Month, d int) patio.Date { return patio.Date{Year: 2026, Month: m, Day: d} }
	var ids []string
	create := func(i int, due patio.Date) patio.FinancialRecord {
		t.Helper()
		typ := patio.FinancialTypes[i%3]
		in := patio.FinancialInput{Type: patio.Some(typ), Category: patio.Some(patio.FinancialCategories[typ][i/3%4]),
			Description: patio.Some("Lançamento"), Amount: patio.Some(money.Cents(1001 + i*373)), DueDate: patio.Some(due)}
		if i%4 == 1 {
			in.Status = patio.Some(string(patio.FinancialPaid))
		}
		f, err := svc.Create(ctx, team, in)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
		return f
	}
	update := func(id string, in patio.FinancialInput) {
		t.Helper()
		if _, err := svc.Update(ctx, team, id, in); err != nil {
			t.Fatal(err)
		}
	}
	// check compares, for each period, the summary with Summarize over the records as stored, and
	// the month sums (whole, unless whole is false) with the totals of the records of the months.
	check := func(step string, whole bool) {
		t.Helper()
		var records []patio.FinancialRecord
		for _, id := range ids {
			f, err := s.Financial().Get(ctx, team, id)
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, f)
		}
		for _, p := range [][2]patio.Date{{date(3, 1), date(3, 31)}, {date(2, 1), date(5, 31)}, {date(2, 14), date(4, 10)}, {date(1, 1), date(12, 31)}} {
			got, err := patio.SummarizePeriod(ctx, svc, team, p[0], p[1])
			if want := patio.Summarize(p[0], p[1], records); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: SummarizePeriod(%s, %s) = %+v, %v; want %+v", step, p[0], p[1], got, err, want)
			}
		}
		totals, ok, err := sums.MonthTotals(ctx, team, date(1, 1), date(12, 1))
		if err != nil || ok != whole {
			t.Fatalf("%s: MonthTotals = ok %v, %v; want ok %v", step, ok, err, whole)
		}
		if !whole {
			return
		}
		got := map[patio.FinancialTotal]bool{}
		for _, tt := range totals {
			if tt.Count != 0 || tt.Amount != 0 {
				got[tt] = true
			}
		}
		want := map[patio.FinancialTotal]bool{}
		for _, tt := range patio.FinancialTotals(records) {
			want[tt] = true
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: month sums %v; want %v", step, got, want)
		}
	}

	var made []patio.FinancialRecord
	for i := range 24 {
		made = append(made, create(i, date(time.Month(2+i%4), 1+i*7%28)))
	}
	check("creates", true)

	update(made[0].ID, patio.FinancialInput{Amount: patio.Some(money.Cents(987654))})
	update(made[1].ID, patio.FinancialInput{Type: patio.Some("cost"), Category: patio.Some("mecanica")})
	update(made[2].ID, patio.FinancialInput{Category: patio.Some(patio.FinancialCategories[made[2].Type][3])})
	update(made[3].ID, patio.FinancialInput{DueDate: patio.Some(date(3, 31))}) // another month in the periods
	update(made[4].ID, patio.FinancialInput{DueDate: patio.Some(date(7, 1))})  // out of most periods
	update(made[6].ID, patio.FinancialInput{DueDate: patio.Some(date(2, 20)), Amount: patio.Some(money.Cents(5))})
	update(made[7].ID, patio.FinancialInput{Description: patio.Some("Só a descrição")})
	check("edits", true)

	update(made[8].ID, patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid))})
	update(made[9].ID, patio.FinancialInput{Status: patio.Some(string(patio.FinancialPending))}) // a payment reversed
	if _, err := svc.Archive(ctx, team, made[10].ID); err != nil {                               // cancels
		t.Fatal(err)
	}
	if _, err := svc.Archive(ctx, team, made[13].ID); err != nil { // a paid record cancelled
		t.Fatal(err)
	}
	update(made[10].ID, patio.FinancialInput{Status: patio.Some(string(patio.FinancialPending))})
	if _, err := svc.Archive(ctx, team, made[12].ID); err != nil {
		t.Fatal(err)
	}
	check("payments and cancellations", true)

	// A record of the previous format: counted, but in no month sums.
	id, now := patio.NewID()
	w, err := patio.NewFinancialRecord(team, id, now, patio.FinancialInput{Type: patio.Some("expense"), Category: patio.Some("aluguel"),
		Description: patio.Some("Antigo"), Amount: patio.Some(money.Cents(77777)), DueDate: patio.Some(date(3, 10))})
	if err != nil {
		t.Fatal(err)
	}
	w.Record.Revision, w.Record.Zone = 1, patio.DefaultTimeZone
	dynamostore.PutUnsummedFinancial(t, s, w.Record)
	ids = append(ids, id)
	check("a record out of the sums", false)
	update(made[14].ID, patio.FinancialInput{Amount: patio.Some(money.Cents(31415))})
	check("a record out of the sums, after an edit", false)

	if _, err := s.Backfill(ctx, false); err != nil {
		t.Fatal(err)
	}
	check("backfill", true)
	update(id, patio.FinancialInput{DueDate: patio.Some(date(4, 2)), Status: patio.Some(string(patio.FinancialPaid))})
	check("the backfilled record edited", true)
}
