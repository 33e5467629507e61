package patio

import (
	"strings"
	"unicode/utf8"

	"github.com/patio-dev/patio/shared/money"
)

// Page bounds of every list.
const (
	DefaultLimit = 20
	MaxLimit     = 100
	// MaxDepth bounds page × limit: deeper pages are reached with a cursor, whose cost does not
	// grow with depth.
	MaxDepth = 10_000
)

// ListQuery holds the list parameters every resource shares, as the edge decoded them; the
// resource's checks validate them and fill in the defaults. After the checks Page and Limit are
// set, Sort names a sortable field ("created_at" by default, descending) and Status is never
// empty: without a status filter it names every status but the soft-deleted one.
type ListQuery struct {
	Page        Opt[int] // 1 when absent
	Limit       Opt[int] // DefaultLimit when absent
	Sort        string   // a field name without the "-" prefix; "" for the default
	Desc        bool     // descending (the "-" prefix)
	CreatedFrom *Date    // inclusive UTC day
	CreatedTo   *Date    // inclusive UTC day
	Status      []string
	// UpdatedSince keeps the records updated at or after it; without a status filter it lists
	// soft-deleted records too, so an incremental sync sees archivals.
	UpdatedSince *Timestamp
	// After is where a cursor left off: an opaque position the store returned with the previous
	// page (Listed.After), "" for none. Page is then that page's number.
	After string
	// NoTotal says the caller shows no total (the console's board, which reads its columns'
	// totals from Service.Sums): a store may skip counting, and Total is then 0. No request
	// parameter sets it.
	NoTotal bool
	// Brief says the caller shows each record as a card (the console's board): a store may read
	// only the fields a card names (its id, title, links, value, phase, status and times), the
	// others then zero. No request parameter sets it.
	Brief bool
	// none is set by the checks when the query cannot match a record (a window its view narrowed
	// to nothing): the list is empty without asking the store.
	none bool
}

// Offset returns the number of matching records before the requested page.
func (q ListQuery) Offset() int { return (q.Page.Value - 1) * q.Limit.Value }

// Pages returns ceil(total/limit), 0 when total is 0.
func (q ListQuery) Pages(total int) int { return (total + q.Limit.Value - 1) / q.Limit.Value }

// listSpec describes one resource's list parameters.
type listSpec struct {
	sorts       []string
	statuses    []string
	softDeleted string
}

// check validates the shared parameters, recording problems in p, and returns q with the defaults.
func (q ListQuery) check(p *Problems, spec listSpec) ListQuery {
	if !q.Page.Set() {
		q.Page = Some(1)
	} else if q.Page.Value < 1 {
		p.Add(InQuery, "page", "page must be an integer of at least 1")
	}
	if !q.Limit.Set() {
		q.Limit = Some(DefaultLimit)
	} else if q.Limit.Value < 1 || q.Limit.Value > MaxLimit {
		p.Add(InQuery, "limit", "limit must be between 1 and %d", MaxLimit)
	}
	if q.After == "" && q.Page.Value >= 1 && q.Limit.Value >= 1 && q.Limit.Value <= MaxLimit &&
		q.Page.Value*q.Limit.Value > MaxDepth {
		p.Add(InQuery, "page", "page must be at most %d with limit %d (page × limit ≤ %d); use cursor to go deeper",
			MaxDepth/q.Limit.Value, q.Limit.Value, MaxDepth)
	}
	if q.Sort == "" {
		q.Sort, q.Desc = "created_at", true
	} else if !contains(spec.sorts, q.Sort) {
		p.Add(InQuery, "sort", "sort must be one of %s, optionally prefixed with -", strings.Join(spec.sorts, ", "))
	}
	if q.CreatedFrom != nil && q.CreatedTo != nil {
		checkReversed(p, "created_from", "created_to", q.CreatedFrom.Start().Unix(), q.CreatedTo.Start().Unix())
	}
	checkEnumParam(p, "status", q.Status, spec.statuses)
	if len(q.Status) == 0 {
		for _, s := range spec.statuses {
			if s != spec.softDeleted || q.UpdatedSince != nil {
				q.Status = append(q.Status, s)
			}
		}
	}
	return q
}

// checkReversed refuses a range whose start (named from) is after its end (named to), with a problem
// on each of the two parameters, each naming the other.
func checkReversed[N int | int64 | money.Cents](p *Problems, from, to string, start, end N) {
	if start > end {
		p.Add(InQuery, from, "%s must not be after %s", from, to)
		p.Add(InQuery, to, "%s must not be before %s", to, from)
	}
}

// checkRangeParams is checkReversed on optional bounds: only when both are given.
func checkRangeParams[N int | money.Cents](p *Problems, from, to string, start, end *N) {
	if start != nil && end != nil {
		checkReversed(p, from, to, *start, *end)
	}
}

// StatusOnly reports whether the query filters by status alone (after the checks), so that the
// store may answer its total from maintained counts rather than by counting.
func (q ListQuery) StatusOnly() bool {
	return q.CreatedFrom == nil && q.CreatedTo == nil && q.UpdatedSince == nil
}

// checkEnumParam checks that every value of an enum filter is allowed.
func checkEnumParam(p *Problems, name string, values, allowed []string) {
	for _, v := range values {
		if !contains(allowed, v) {
			p.Add(InQuery, name, "%s must be a comma-separated list of %s", name, strings.Join(allowed, ", "))
			return
		}
	}
}

// checkIDParam checks a filter naming a record (a UUID) and puts it in its canonical form.
func checkIDParam(p *Problems, name string, v **string) {
	if *v == nil {
		return
	}
	id, ok := ParseID(**v)
	if !ok {
		p.Add(InQuery, name, "%s must be a UUID", name)
		return
	}
	*v = &id
}

// checkTextParam checks a free-text filter (non-empty, at most 200 characters) and folds it for
// matching (Fold).
func checkTextParam(p *Problems, name string, v **string) {
	if *v == nil {
		return
	}
	f := Fold(strings.TrimFunc(**v, isBlank))
	switch {
	case badText(p, InQuery, name, **v, false):
	case f == "":
		p.Add(InQuery, name, "%s must not be empty", name)
	case utf8.RuneCountInString(f) > 200:
		p.Add(InQuery, name, "%s must be at most 200 characters", name)
	}
	*v = &f
}
