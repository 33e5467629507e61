package patio_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Totals are exact to the cent over many records with cent values (no float arithmetic).
func TestSummarizeExact(t *testing.T) {
	day := func(d int) patio.Date { return patio.Date{Year: 2026, Month: 3, Day: d} }
	var records []patio.FinancialRecord
	var revenue, cost, cancelled money.Cents
	for i := range 1000 {
		r := patio.FinancialRecord{Type: "revenue", Category: "comissao", Status: patio.FinancialPending,
			Amount: money.Cents(1 + i*7%100 + i), DueDate: day(1 + i%28)}
		switch {
		case i%10 == 0:
			r.Status = patio.FinancialCancelled
			cancelled += r.Amount
		case i%3 == 0:
			r.Type, r.Category = "cost", "mecanica"
			cost += r.Amount
		default:
			revenue += r.Amount
		}
		records = append(records, r)
	}
	records = append(records, patio.FinancialRecord{Type: "revenue", Category: "comissao", Amount: 999, DueDate: day(31) /* outside */})
	s := patio.Summarize(day(1), day(30), records)
	if s.Records != 1000 || s.ByType["revenue"] != revenue || s.ByType["cost"] != cost ||
		s.ByCategory["cost"]["mecanica"] != cost || s.ByStatus[string(patio.FinancialCancelled)] != cancelled {
		t.Errorf("Summarize = %+v; want 1000 records, revenue %s, cost %s, cancelled %s", s, revenue, cost, cancelled)
	}
}

func TestFinancialTransitions(t *testing.T) {
	now := clientNow
	base := func(status patio.FinancialStatus) patio.FinancialRecord {
		return patio.FinancialRecord{ID: "f", Type: "expense", Category: "aluguel", Description: "Aluguel",
			Amount: 100, DueDate: patio.DateOf(now), Status: status}
	}
	tests := []struct {
		from, to patio.FinancialStatus
		ok       bool
	}{
		{patio.FinancialPending, patio.FinancialPaid, true},
		{patio.FinancialPending, patio.FinancialCancelled, true},
		{patio.FinancialPaid, patio.FinancialPending, true},
		{patio.FinancialCancelled, patio.FinancialPending, true},
		{patio.FinancialPaid, patio.FinancialCancelled, false},
		{patio.FinancialCancelled, patio.FinancialPaid, false},
	}
	for _, tt := range tests {
		w, err := base(tt.from).Apply(patio.FinancialInput{Status: patio.Some(string(tt.to))}, now)
		if tt.ok != (err == nil) || (!tt.ok && !patio.IsKind(err, patio.KindConflict)) {
			t.Errorf("Apply(%s → %s) = %v; want ok %v (else KindConflict)", tt.from, tt.to, err, tt.ok)
			continue
		}
		if tt.ok && (w.Record.PaidAt != nil) != (tt.to == patio.FinancialPaid) {
			t.Errorf("Apply(%s → %s) paid_at = %v; want set only when paid", tt.from, tt.to, w.Record.PaidAt)
		}
	}
}

func TestActivityTransitions(t *testing.T) {
	now := clientNow
	all := patio.ActivityStatuses
	allowed := map[[2]string]bool{
		{"pending", "in_progress"}: true, {"pending", "completed"}: true, {"pending", "cancelled"}: true,
		{"in_progress", "pending"}: true, {"in_progress", "completed"}: true, {"in_progress", "cancelled"}: true,
		{"completed", "pending"}: true, {"cancelled", "pending"}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if from == to {
				continue
			}
			a := patio.Activity{ID: "a", Type: "task", Title: "x", Status: patio.ActivityStatus(from)}
			if from == string(patio.ActivityCompleted) {
				a.CompletedAt = ptrTS(now)
			}
			w, err := a.Apply(patio.ActivityInput{Status: patio.Some(to)}, now)
			if allowed[[2]string{from, to}] != (err == nil) {
				t.Errorf("Apply(%s → %s) = %v; want allowed %v", from, to, err, allowed[[2]string{from, to}])
				continue
			}
			if err == nil && (w.Record.CompletedAt != nil) != (to == string(patio.ActivityCompleted)) {
				t.Errorf("Apply(%s → %s) completed_at = %v; want set only when completed", from, to, w.Record.CompletedAt)
			}
		}
	}
}

func ptrTS(t time.Time) *patio.Timestamp {
	ts := patio.NewTimestamp(t)
	return &ts
}

// financial.overdue falls at the start of the day after due_date in the team's time zone.
func TestFinancialOverdueAt(t *testing.T) {
	due := patio.Date{Year: 2026, Month: 3, Day: 15}
	for _, tt := range []struct {
		zone string
		want string // UTC
	}{
		{"America/Sao_Paulo", "2026-03-16T03:00:00Z"},
		{"Asia/Tokyo", "2026-03-15T15:00:00Z"},
		{"", "2026-03-16T00:00:00Z"},
	} {
		f := patio.FinancialRecord{DueDate: due, Status: patio.FinancialPending, Zone: tt.zone}
		if got := f.OverdueAt().UTC().Format(time.RFC3339); got != tt.want {
			t.Errorf("OverdueAt(%s) = %s; want %s", tt.zone, got, tt.want)
		}
		alarm, ok := f.NextAlarm()
		if !ok || alarm.Type != patio.AlarmOverdue {
			t.Errorf("NextAlarm(pending) = %+v %v; want overdue", alarm, ok)
		}
		if _, ok := f.Fired(patio.AlarmOverdue, time.Now()).NextAlarm(); ok {
			t.Errorf("NextAlarm after firing = true; want none until due_date moves")
		}
		f.Status = patio.FinancialPaid
		if _, ok := f.NextAlarm(); ok {
			t.Errorf("NextAlarm(paid) = true; want none")
		}
	}
}

// An alarm is never scheduled before the record's last write: a record written with its overdue
// instant long past is fired by the next tick (which looks back only so far), not never.
func TestOverdueAlarmNotBeforeTheWrite(t *testing.T) {
	written := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	f := patio.FinancialRecord{DueDate: patio.Date{Year: 2026, Month: 3, Day: 1}, Status: patio.FinancialPending,
		Zone: "America/Sao_Paulo", UpdatedAt: patio.NewTimestamp(written)}
	if alarm, ok := f.NextAlarm(); !ok || !alarm.At.Equal(written) {
		t.Errorf("financial NextAlarm = %+v %v; want overdue at the write, %s", alarm, ok, written)
	}
	due := patio.NewTimestamp(written.Add(-5 * time.Hour))
	a := patio.Activity{Status: patio.ActivityPending, DueAt: &due, DueSoonFired: &due, UpdatedAt: patio.NewTimestamp(written)}
	if alarm, ok := a.NextAlarm(); !ok || alarm.Type != patio.AlarmOverdue || !alarm.At.Equal(written) {
		t.Errorf("activity NextAlarm = %+v %v; want overdue at the write, %s", alarm, ok, written)
	}
}

// TestPaidAtAsGiven: a payment's date-time is the one given with it (now by default), never in
// the future, and only with a payment; going back to pending clears it.
func TestPaidAtAsGiven(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	given := patio.NewTimestamp(now.Add(-72 * time.Hour))
	w, err := patio.NewFinancialRecord("t", "id", now.Add(-96*time.Hour), patio.FinancialInput{Type: patio.Some("revenue"),
		Category: patio.Some("comissao"), Description: patio.Some("Comissão"), Amount: patio.Some(money.Cents(150000)),
		DueDate: patio.Some(patio.DateOf(now))})
	if err != nil {
		t.Fatal(err)
	}
	rec := w.Record
	paid, err := rec.Apply(patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid)), PaidAt: patio.Some(given)}, now)
	if err != nil || paid.Record.PaidAt == nil || *paid.Record.PaidAt != given {
		t.Fatalf("pay with paid_at %s = %v, %v; want paid_at as given", given, paid.Record.PaidAt, err)
	}
	if d, err := rec.Apply(patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid))}, now); err != nil || d.Record.PaidAt.Time() != now {
		t.Errorf("pay without paid_at = %v, %v; want now", d.Record.PaidAt, err)
	}
	future := patio.NewTimestamp(now.Add(time.Hour))
	if _, err := rec.Apply(patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid)), PaidAt: patio.Some(future)}, now); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("pay in the future = %v; want KindInvalid", err)
	}
	if _, err := rec.Apply(patio.FinancialInput{PaidAt: patio.Some(given)}, now); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("paid_at on a pending record without paying = %v; want KindInvalid", err)
	}
	back, err := paid.Record.Apply(patio.FinancialInput{Status: patio.Some(string(patio.FinancialPending))}, now)
	if err != nil || back.Record.PaidAt != nil {
		t.Errorf("reversal = %v, %v; want paid_at cleared", back.Record.PaidAt, err)
	}
}

// monthSumsStore is a financial store holding records, that keeps their totals by due month when
// whole: it answers MonthTotals from them, and counts the records its lists read.
type monthSumsStore struct {
	*fakeStore[patio.FinancialRecord, patio.FinancialQuery]
	records []patio.FinancialRecord
	whole   bool
	read    int
}

func (s *monthSumsStore) MonthTotals(_ context.Context, _ string, first, last patio.Date) ([]patio.FinancialTotal, bool, error) {
	if !s.whole {
		return nil, false, nil
	}
	var in []patio.FinancialRecord
	for _, r := range s.records {
		m := patio.Date{Year: r.DueDate.Year, Month: r.DueDate.Month, Day: 1}
		if !m.Start().Before(patio.Date{Year: first.Year, Month: first.Month, Day: 1}.Start()) && !m.Start().After(last.Start()) {
			in = append(in, r)
		}
	}
	return patio.FinancialTotals(in), true, nil
}

// TestSummarizePeriodFromMonthSums: a summary read from the totals a store keeps by due month
// (whole months from them, the days of a month the period covers in part from the records) is the
// one Summarize makes of the records; a store whose totals are not whole is not asked for them.
func TestSummarizePeriodFromMonthSums(t *testing.T) {
	date := func(y int, m time.Month, d int) patio.Date { return patio.Date{Year: y, Month: m, Day: d} }
	var records []patio.FinancialRecord
	for i := range 400 {
		typ := patio.FinancialTypes[i%3]
		r := patio.FinancialRecord{Type: typ, Category: patio.FinancialCategories[typ][i/3%4],
			Status: patio.FinancialStatus(patio.FinancialStatuses[i/12%3]), Amount: money.Cents(101 + i*37),
			DueDate: patio.DateOf(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%150))}
		records = append(records, r)
	}
	store := &monthSumsStore{records: records, whole: true}
	store.fakeStore = &fakeStore[patio.FinancialRecord, patio.FinancialQuery]{t: t,
		ListFn: func(_ context.Context, _ string, q patio.FinancialQuery) ([]patio.FinancialRecord, int, error) {
			var out []patio.FinancialRecord
			for _, r := range store.records {
				if !r.DueDate.Start().Before(q.DueFrom.Start()) && !r.DueDate.Start().After(q.DueTo.Start()) {
					out = append(out, r)
				}
			}
			store.read += len(out)
			return out, len(out), nil
		}}
	svc := patio.NewFinancial(store, func(context.Context, string) (patio.Team, error) { return patio.Team{}, nil })
	periods := []struct {
		from, to patio.Date
		read     int // records read from the store with whole sums (the days outside whole months)
	}{
		{date(2026, 1, 1), date(2026, 1, 31), 0},
		{date(2025, 11, 1), date(2026, 3, 31), 0},
		{date(2025, 11, 15), date(2026, 2, 10), -1},
		{date(2026, 1, 5), date(2026, 1, 20), -1},
		{date(2026, 2, 1), date(2026, 2, 27), -1},
		{date(2025, 12, 31), date(2026, 1, 1), -1},
		{date(2024, 1, 1), date(2024, 12, 31), 0},
	}
	for _, p := range periods {
		want := patio.Summarize(p.from, p.to, records)
		for _, whole := range []bool{true, false} {
			store.whole, store.read = whole, 0
			got, err := patio.SummarizePeriod(context.Background(), svc, "team", p.from, p.to)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("SummarizePeriod(%s, %s), whole sums %v = %+v, %v; want %+v", p.from, p.to, whole, got, err, want)
			}
			if whole && p.read == 0 && store.read != 0 {
				t.Errorf("SummarizePeriod(%s, %s) read %d records; want none (whole months from the sums)", p.from, p.to, store.read)
			}
		}
	}
}
