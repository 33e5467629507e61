package patio

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/money"
)

// FinancialStatus is where a financial record stands: due (FinancialPending), settled
// (FinancialPaid) or void (FinancialCancelled, the soft-deleted status).
type FinancialStatus string

// Financial record statuses.
const (
	FinancialPending   FinancialStatus = "pending"
	FinancialPaid      FinancialStatus = "paid"
	FinancialCancelled FinancialStatus = "cancelled"
)

// Financial record enums and sortable fields.
var (
	FinancialTypes    = []string{"revenue", "expense", "cost"}
	FinancialStatuses = []string{string(FinancialPending), string(FinancialPaid), string(FinancialCancelled)}
	FinancialSorts    = []string{"created_at", "updated_at", "due_date", "amount"}
	// FinancialCategories are the categories of each type; a category of another type is refused.
	FinancialCategories = map[string][]string{
		"revenue": {"venda-veiculo", "comissao", "financiamento", "seguro"},
		"expense": {"aluguel", "pessoal", "marketing", "tecnologia"},
		"cost":    {"funilaria", "mecanica", "higienizacao", "documentacao"},
	}
)

// financialTransitions are the status changes a financial record allows: pending → paid or
// cancelled; paid → pending (a reversal); cancelled → pending.
var financialTransitions = map[FinancialStatus][]FinancialStatus{
	FinancialPending:   {FinancialPaid, FinancialCancelled},
	FinancialPaid:      {FinancialPending},
	FinancialCancelled: {FinancialPending},
}

// FinancialRecord is a revenue, expense or cost of a team, optionally linked to its vehicles,
// clients and deals; managed from the dashboard side, not the public API. Its JSON form is the
// webhook data.object of the financial events.
type FinancialRecord struct {
	ID            string          `json:"id"`
	TeamID        string          `json:"-"`
	Type          string          `json:"type"`
	Category      string          `json:"category"`
	Description   string          `json:"description"`
	Amount        money.Cents     `json:"amount"`
	DueDate       Date            `json:"due_date"`
	Status        FinancialStatus `json:"status"`
	PaidAt        *Timestamp      `json:"paid_at"`
	PaymentMethod *string         `json:"payment_method"`
	VehicleID     *string         `json:"vehicle_id"`
	ClientID      *string         `json:"client_id"`
	DealID        *string         `json:"deal_id"`
	Notes         *string         `json:"notes"`
	CreatedAt     Timestamp       `json:"created_at"`
	UpdatedAt     Timestamp       `json:"updated_at"`
	// Revision starts at 1 and grows by one with every write that changes the record; the store
	// sets it.
	Revision int `json:"revision"`

	// OverdueFired is the due_date value financial.overdue fired for (at most once per value);
	// Zone is the team's time zone when the record was written, whose midnight after due_date
	// makes it overdue. Not part of the representation.
	OverdueFired *Date `json:"-"`
	// FiredAt is when the timer fired the record's overdue: when the event was recorded (see
	// Activity.FiredAt). Not part of the representation.
	FiredAt *Timestamp `json:"-"`
	Zone    string     `json:"-"`
}

// OverdueAt is when a record becomes overdue: the start of the day after its due_date in its
// team's time zone (UTC when the zone is unknown).
func (f FinancialRecord) OverdueAt() time.Time {
	loc, err := time.LoadLocation(f.Zone)
	if err != nil || f.Zone == "" {
		loc = time.UTC
	}
	return time.Date(f.DueDate.Year, f.DueDate.Month, f.DueDate.Day+1, 0, 0, 0, 0, loc)
}

// Overdue reports whether the record is overdue at now: pending, and past OverdueAt.
func (f FinancialRecord) Overdue(now time.Time) bool {
	return f.Status == FinancialPending && !now.Before(f.OverdueAt())
}

// NextAlarm returns the record's pending timed event, if any: financial.overdue while pending,
// never before the record's last write (a due_date whose midnight is long past fires at the next
// tick, dated when the record was written: an event is not dated before the write that armed it).
func (f FinancialRecord) NextAlarm() (Alarm, bool) {
	if f.Status != FinancialPending || (f.OverdueFired != nil && *f.OverdueFired == f.DueDate) {
		return Alarm{}, false
	}
	return Alarm{Type: AlarmOverdue, At: later(f.OverdueAt(), f.UpdatedAt.Time())}, true
}

// Fired returns the record with its overdue marked as fired for its due_date.
func (f FinancialRecord) Fired(_ string, at time.Time) FinancialRecord {
	f.FiredAt = ptr(NewTimestamp(at))
	f.OverdueFired = ptr(f.DueDate)
	return f
}

// FinancialInput is a financial record's create or update input, member by member.
type FinancialInput struct {
	Type, Category, Description Opt[string]
	Amount                      Opt[money.Cents]
	DueDate                     Opt[Date]
	Status, PaymentMethod       Opt[string]
	VehicleID, ClientID, DealID Opt[string]
	Notes                       Opt[string]
	// PaidAt is when the payment was made, given with it (status paid); now when absent. It may
	// not be in the future.
	PaidAt Opt[Timestamp]
}

// checkPaidAt checks a payment's date-time against now: set only with a payment, never null, not
// in the future (a minute of clock skew aside).
func (in FinancialInput) checkPaidAt(p *Problems, paid bool, now time.Time) {
	switch {
	case in.PaidAt.Null:
		p.Add(InBody, "paid_at", "paid_at must not be null")
	case !in.PaidAt.Set():
	case !paid:
		p.Add(InBody, "paid_at", "paid_at is given only with a payment (status paid)")
	case in.PaidAt.Value.Time().After(now.Add(time.Minute)):
		p.Add(InBody, "paid_at", "paid_at must not be in the future")
	}
}

// paidAt is the payment's date-time: the one given, else now.
func (in FinancialInput) paidAt(now time.Time) *Timestamp {
	if in.PaidAt.Set() {
		return ptr(in.PaidAt.Value)
	}
	return ptr(NewTimestamp(now))
}

// Validate checks each member of the input on its own.
func (in FinancialInput) Validate(time.Time) error {
	var p Problems
	in.check(&p)
	return p.Err()
}

func (in *FinancialInput) check(p *Problems) {
	checkEnum(p, "type", in.Type, FinancialTypes)
	checkText(p, "category", &in.Category, 1, 40)
	checkText(p, "description", &in.Description, 1, 200)
	if in.Amount.Set() && in.Amount.Value <= 0 {
		p.Add(InBody, "amount", "amount must be greater than 0")
	}
	if in.Amount.Set() && in.Amount.Value > money.Max {
		p.Add(InBody, "amount", "amount must be at most 999999999.99")
	}
	checkEnum(p, "status", in.Status, FinancialStatuses)
	checkEnum(p, "payment_method", in.PaymentMethod, DealPaymentMethods)
	checkID(p, "vehicle_id", &in.VehicleID)
	checkID(p, "client_id", &in.ClientID)
	checkID(p, "deal_id", &in.DealID)
	checkMultiline(p, "notes", &in.Notes, 0, 5000)
}

func (f *FinancialRecord) merge(in FinancialInput) {
	setIf(&f.Type, in.Type)
	setIf(&f.Category, in.Category)
	setIf(&f.Description, in.Description)
	setIf(&f.Amount, in.Amount)
	setIf(&f.DueDate, in.DueDate)
	apply(&f.PaymentMethod, in.PaymentMethod)
	apply(&f.VehicleID, in.VehicleID)
	apply(&f.ClientID, in.ClientID)
	apply(&f.DealID, in.DealID)
	apply(&f.Notes, in.Notes)
}

// checkCategory applies the rule between type and category: a category of another type is
// KindInvalid.
func (f FinancialRecord) checkCategory() error {
	if !contains(FinancialCategories[f.Type], f.Category) {
		var p Problems
		p.Add(InBody, "category", "category must be one of %s for type %s",
			strings.Join(FinancialCategories[f.Type], ", "), f.Type)
		return p.Err()
	}
	return nil
}

// NewFinancialRecord builds a financial record of the team: type, category, description, amount
// and due_date required; it starts pending (or paid, recording a payment already made).
func NewFinancialRecord(teamID, id string, now time.Time, in FinancialInput) (Write[FinancialRecord], error) {
	var p Problems
	in.check(&p)
	for name, present := range map[string]bool{"type": in.Type.Set(), "category": in.Category.Set(),
		"description": in.Description.Set(), "amount": in.Amount.Set(), "due_date": in.DueDate.Set()} {
		if !present {
			p.Add(InBody, name, "%s is required", name)
		}
	}
	notNull(&p, "status", in.Status)
	if in.Status.Set() && in.Status.Value == string(FinancialCancelled) {
		p.Add(InBody, "status", "status must be pending or paid when creating a financial record")
	}
	in.checkPaidAt(&p, in.Status.Set() && in.Status.Value == string(FinancialPaid), now)
	if err := p.Err(); err != nil {
		return Write[FinancialRecord]{}, err
	}
	ts := NewTimestamp(now)
	f := FinancialRecord{ID: id, TeamID: teamID, Status: FinancialPending, CreatedAt: ts, UpdatedAt: ts}
	f.merge(in)
	if err := f.checkCategory(); err != nil {
		return Write[FinancialRecord]{}, err
	}
	if in.Status.Set() && in.Status.Value == string(FinancialPaid) {
		f.Status, f.PaidAt = FinancialPaid, in.paidAt(now)
	}
	return Write[FinancialRecord]{Record: f, Requires: financialLinks(nil, f)}, nil
}

// Apply returns the write an update input makes: members change (a category must stay one of the
// type's), and a status change follows the transition table (KindConflict otherwise); paying sets
// paid_at, going back to pending clears it.
func (f FinancialRecord) Apply(in FinancialInput, now time.Time) (Write[FinancialRecord], error) {
	var p Problems
	in.check(&p)
	for name, null := range map[string]bool{"type": in.Type.Null, "category": in.Category.Null,
		"description": in.Description.Null, "amount": in.Amount.Null, "due_date": in.DueDate.Null, "status": in.Status.Null} {
		if null {
			p.Add(InBody, name, "%s must not be null", name)
		}
	}
	paying := in.Status.Set() && in.Status.Value == string(FinancialPaid)
	in.checkPaidAt(&p, paying || (!in.Status.Set() && f.Status == FinancialPaid), now)
	if err := p.Err(); err != nil {
		return Write[FinancialRecord]{}, err
	}
	next := f
	next.merge(in)
	if err := next.checkCategory(); err != nil {
		return Write[FinancialRecord]{}, err
	}
	if to := FinancialStatus(in.Status.Value); in.Status.Set() && to != f.Status {
		if !slices.Contains(financialTransitions[f.Status], to) {
			return Write[FinancialRecord]{}, Conflictf("a financial record that is %s cannot become %s", f.Status, in.Status.Value)
		}
		next.Status = to
		switch next.Status {
		case FinancialPaid:
			next.PaidAt = in.paidAt(now)
		case FinancialPending:
			next.PaidAt = nil
		}
	} else if in.PaidAt.Set() {
		next.PaidAt = ptr(in.PaidAt.Value) // a paid record's payment date, corrected
	}
	return Write[FinancialRecord]{Record: next, Requires: financialLinks(&f, next)}, nil
}

// Cancel returns the record cancelled, from any status: deleting a financial record cancels it
// (the soft delete).
func (f FinancialRecord) Cancel() FinancialRecord {
	f.Status = FinancialCancelled
	f.PaidAt = nil
	return f
}

func financialLinks(cur *FinancialRecord, next FinancialRecord) []Requirement {
	var was *Activity
	if cur != nil {
		was = &Activity{VehicleID: cur.VehicleID, ClientID: cur.ClientID, DealID: cur.DealID}
	}
	return linkRequirements(was, next.VehicleID, next.ClientID, next.DealID)
}

func (f FinancialRecord) revision() int { return f.Revision }

func (f FinancialRecord) touched(now time.Time) FinancialRecord {
	f.UpdatedAt = NewTimestamp(now)
	return f
}

// FinancialQuery is a financial record list request.
type FinancialQuery struct {
	ListQuery
	Type, Category, PaymentMethod []string
	DueFrom, DueTo                *Date // due_date window, inclusive
	VehicleID, ClientID, DealID   *string
	// Overdue keeps the pending records whose due_date has passed (before Today). The use cases
	// (Financial.List) set Today to the date in the team's time zone when it is not set.
	Overdue bool
	Today   Date
}

// Check validates the query's values and returns it with the defaults filled in.
func (q FinancialQuery) Check() (FinancialQuery, error) {
	var p Problems
	q.ListQuery = q.ListQuery.check(&p, listSpec{sorts: FinancialSorts, statuses: FinancialStatuses, softDeleted: string(FinancialCancelled)})
	checkEnumParam(&p, "type", q.Type, FinancialTypes)
	var all []string
	for _, t := range FinancialTypes {
		all = append(all, FinancialCategories[t]...)
	}
	checkEnumParam(&p, "category", q.Category, all)
	checkEnumParam(&p, "payment_method", q.PaymentMethod, DealPaymentMethods)
	for name, v := range map[string]**string{"vehicle_id": &q.VehicleID, "client_id": &q.ClientID, "deal_id": &q.DealID} {
		checkIDParam(&p, name, v)
	}
	if q.DueFrom != nil && q.DueTo != nil {
		checkReversed(&p, "due_from", "due_to", q.DueFrom.Start().Unix(), q.DueTo.Start().Unix())
	}
	if q.Overdue {
		q.Status = []string{string(FinancialPending)}
		if q.Today == (Date{}) {
			q.Today = DateOf(time.Now())
		}
		yesterday := DateOf(q.Today.Start().Add(-24 * time.Hour))
		if q.DueTo == nil || q.DueTo.Start().After(yesterday.Start()) {
			q.DueTo = &yesterday
		}
		q.none = q.DueFrom != nil && q.DueFrom.Start().After(q.DueTo.Start())
	}
	return q, p.Err()
}

// FinancialStore persists financial records.
type FinancialStore = Store[FinancialRecord, FinancialQuery]

// Financial is the financial record use cases.
type Financial = Service[FinancialRecord, FinancialInput, FinancialQuery]

// TeamLookup returns a team, or KindNotFound.
type TeamLookup func(ctx context.Context, id string) (Team, error)

// NewFinancial returns the financial record use cases on a store; teams gives each record its
// team's time zone (for when it becomes overdue).
func NewFinancial(store FinancialStore, teams TeamLookup) Financial {
	zone := func(ctx context.Context, teamID string) (string, error) {
		t, err := teams(ctx, teamID)
		return t.TimeZone, err
	}
	return Financial{store: store, rules: Rules[FinancialRecord, FinancialInput, FinancialQuery]{
		New: func(ctx context.Context, teamID, id string, now time.Time, in FinancialInput) (Write[FinancialRecord], error) {
			w, err := NewFinancialRecord(teamID, id, now, in)
			if err == nil {
				w.Record.Zone, err = zone(ctx, teamID)
			}
			return w, err
		},
		Apply: func(ctx context.Context, cur FinancialRecord, in FinancialInput, now time.Time) (Write[FinancialRecord], error) {
			w, err := cur.Apply(in, now)
			if err == nil && w.Record.Zone == "" {
				w.Record.Zone, err = zone(ctx, cur.TeamID)
			}
			return w, err
		},
		Remove: FinancialRecord.Cancel,
		Query:  FinancialQuery.Check,
		Scope: func(ctx context.Context, teamID string, q FinancialQuery) (FinancialQuery, error) {
			if !q.Overdue || q.Today != (Date{}) {
				return q, nil
			}
			name, err := zone(ctx, teamID)
			if err != nil {
				return q, err
			}
			loc, err := CheckTimeZone(name)
			if err != nil {
				return q, err
			}
			q.Today = DateOf(time.Now().In(loc))
			return q, nil
		},
	}}
}

// Summary is a period's financial totals, exact to the cent: by type, by type and category, and by
// status.
type Summary struct {
	From, To   Date                              `json:"-"`
	ByType     map[string]money.Cents            `json:"by_type"`
	ByCategory map[string]map[string]money.Cents `json:"by_category"`
	ByStatus   map[string]money.Cents            `json:"by_status"`
	Records    int                               `json:"records"`
	// Months are the period's months in order, each with its totals by type (cancelled records
	// left out), every month present even when it has none.
	Months []MonthTotals `json:"months"`
}

// MonthTotals is one month's totals by type.
type MonthTotals struct {
	// Month is the month's first day.
	Month  Date                   `json:"month"`
	ByType map[string]money.Cents `json:"by_type"`
}

// MaxSummaryMonths is the longest period a summary covers.
const MaxSummaryMonths = 24

// CheckPeriod checks a summary's period: to not before from, at most MaxSummaryMonths months
// (KindInvalid naming from or to).
func CheckPeriod(from, to Date) error {
	var p Problems
	switch {
	case to.Start().Before(from.Start()):
		p.Add(InQuery, "to", "to must not be before from")
	case (to.Year-from.Year)*12+int(to.Month-from.Month)+1 > MaxSummaryMonths:
		p.Add(InQuery, "to", "a summary covers at most %d months", MaxSummaryMonths)
	}
	return p.Err()
}

// SummarizePeriod totals the team's records due in [from, to] (Summarize): the summary the console
// shows and the operators' tool prints. When the store keeps totals by due month
// (FinancialMonthSums) and has every record of the team in them, the period's whole months are
// read from those totals (a few small items per month) and only the days of a month it covers in
// part from the records; otherwise it reads every record due in the period (every status, page
// after page). Both give the same summary.
func SummarizePeriod(ctx context.Context, svc Financial, teamID string, from, to Date) (Summary, error) {
	if err := CheckPeriod(from, to); err != nil {
		return Summary{}, err
	}
	if sums, ok := svc.store.(FinancialMonthSums); ok {
		s, ok, err := summarizeMonths(ctx, svc, sums, teamID, from, to)
		if err != nil || ok {
			return s, err
		}
	}
	all, err := financialDue(ctx, svc, teamID, from, to)
	if err != nil {
		return Summary{}, err
	}
	return Summarize(from, to, all), nil
}

// summarizeMonths is SummarizePeriod from the kept totals of the period's whole months and the
// records of the days before the first and after the last; ok is false when the period holds no
// whole month or the store's totals do not have every record of the team.
func summarizeMonths(ctx context.Context, svc Financial, sums FinancialMonthSums, teamID string, from, to Date) (Summary, bool, error) {
	first := monthOf(from)
	if first != from {
		first = monthOf(DateOf(first.Start().AddDate(0, 1, 0)))
	}
	last := monthOf(to)
	if lastDay := DateOf(last.Start().AddDate(0, 1, -1)); lastDay != to {
		last = monthOf(DateOf(last.Start().AddDate(0, -1, 0)))
	}
	if last.Start().Before(first.Start()) {
		return Summary{}, false, nil
	}
	totals, ok, err := sums.MonthTotals(ctx, teamID, first, last)
	if err != nil || !ok {
		return Summary{}, false, err
	}
	var edges []FinancialRecord
	if before := DateOf(first.Start().AddDate(0, 0, -1)); !before.Start().Before(from.Start()) {
		if edges, err = financialDue(ctx, svc, teamID, from, before); err != nil {
			return Summary{}, false, err
		}
	}
	if after := DateOf(last.Start().AddDate(0, 1, 0)); !to.Start().Before(after.Start()) {
		more, err := financialDue(ctx, svc, teamID, after, to)
		if err != nil {
			return Summary{}, false, err
		}
		edges = append(edges, more...)
	}
	return summaryOf(from, to, append(totals, FinancialTotals(edges)...)), true, nil
}

// financialDue reads every record of the team due in [from, to], of every status.
func financialDue(ctx context.Context, svc Financial, teamID string, from, to Date) ([]FinancialRecord, error) {
	var all []FinancialRecord
	err := EachFinancial(ctx, svc, teamID, FinancialQuery{ListQuery: ListQuery{Status: FinancialStatuses},
		DueFrom: &from, DueTo: &to}, func(page []FinancialRecord) error {
		all = append(all, page...)
		return nil
	})
	return all, err
}

// EachFinancial hands every record q matches to each, a page at a time (MaxLimit records, by due
// date), following the cursor: the console's CSV export and the summaries read this way.
func EachFinancial(ctx context.Context, svc Financial, teamID string, q FinancialQuery, each func([]FinancialRecord) error) error {
	q.Limit, q.Sort, q.Page = Some(MaxLimit), "due_date", Opt[int]{}
	for {
		page, err := svc.List(ctx, teamID, q)
		if err != nil {
			return err
		}
		if err := each(page.Items); err != nil {
			return err
		}
		if page.Next == "" {
			return nil
		}
		q.After, q.Page = page.Next, Some(page.List.Page.Value+1)
	}
}

// Summarize totals records (those with due_date in [from, to], cancelled ones included in
// by_status only).
func Summarize(from, to Date, records []FinancialRecord) Summary {
	var in []FinancialRecord
	for _, r := range records {
		if !r.DueDate.Start().Before(from.Start()) && !r.DueDate.Start().After(to.Start()) {
			in = append(in, r)
		}
	}
	return summaryOf(from, to, FinancialTotals(in))
}

// FinancialTotal is how many of a team's records are due in a month with a type, category and
// status, and the sum of their amounts: what a summary is made of (Summarize), and what a store
// that keeps totals by due month holds (FinancialMonthSums).
type FinancialTotal struct {
	// Month is the month's first day.
	Month                  Date
	Type, Category, Status string
	Sum
}

// FinancialTotals groups records into their totals by due month, type, category and status (in no
// particular order).
func FinancialTotals(records []FinancialRecord) []FinancialTotal {
	type key struct {
		month                 Date
		typ, category, status string
	}
	at := map[key]int{}
	var out []FinancialTotal
	for _, r := range records {
		k := key{monthOf(r.DueDate), r.Type, r.Category, string(r.Status)}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, FinancialTotal{Month: k.month, Type: r.Type, Category: r.Category, Status: string(r.Status)})
		}
		out[i].Count++
		out[i].Amount += r.Amount
	}
	return out
}

// FinancialMonthSums is a FinancialStore that keeps its records' totals by due month, type,
// category and status, moved by every write: SummarizePeriod reads a period's whole months from
// them instead of their records.
type FinancialMonthSums interface {
	// MonthTotals returns the team's totals of the months from first's to last's (each given by
	// any day of it), as kept (no record is read); ok is false while some record of the team is
	// not in them (written before they were kept).
	MonthTotals(ctx context.Context, teamID string, first, last Date) (totals []FinancialTotal, ok bool, err error)
}

// summaryOf adds up the totals of the months of [from, to] (the caller's totals are of records
// due in the period; totals of no record, and of months outside it, add nothing).
func summaryOf(from, to Date, totals []FinancialTotal) Summary {
	s := Summary{From: from, To: to, ByType: map[string]money.Cents{}, ByCategory: map[string]map[string]money.Cents{},
		ByStatus: map[string]money.Cents{}}
	month := map[Date]int{}
	for m := monthOf(from); !m.Start().After(to.Start()); m = DateOf(m.Start().AddDate(0, 1, 0)) {
		month[m] = len(s.Months)
		s.Months = append(s.Months, MonthTotals{Month: m, ByType: map[string]money.Cents{}})
	}
	for _, t := range totals {
		i, ok := month[monthOf(t.Month)]
		if !ok || t.Count <= 0 {
			continue
		}
		s.Records += t.Count
		s.ByStatus[t.Status] += t.Amount
		if t.Status == string(FinancialCancelled) {
			continue
		}
		s.ByType[t.Type] += t.Amount
		if s.ByCategory[t.Type] == nil {
			s.ByCategory[t.Type] = map[string]money.Cents{}
		}
		s.ByCategory[t.Type][t.Category] += t.Amount
		s.Months[i].ByType[t.Type] += t.Amount
	}
	return s
}

// monthOf is the first day of d's month.
func monthOf(d Date) Date { return Date{Year: d.Year, Month: d.Month, Day: 1} }
