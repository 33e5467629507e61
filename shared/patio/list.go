package patio

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/money"
)

// Page bounds of CONTRACT.md section 4.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ListQuery holds the list parameters every resource shares. Status is never empty after parsing:
// without a status filter it names every status but the soft-deleted one.
type ListQuery struct {
	Page        int
	Limit       int
	Sort        string // a sortable field name; "created_at" by default
	Desc        bool   // descending; true by default
	CreatedFrom *Date  // inclusive UTC day
	CreatedTo   *Date  // inclusive UTC day
	Status      []string
}

// Offset returns the number of matching records before the requested page.
func (q ListQuery) Offset() int { return (q.Page - 1) * q.Limit }

// Pages returns ceil(total/limit), 0 when total is 0.
func (q ListQuery) Pages(total int) int { return (total + q.Limit - 1) / q.Limit }

// listSpec describes one resource's list parameters.
type listSpec struct {
	sorts       []string
	statuses    []string
	softDeleted string
	extra       map[string]func(value string) error
}

// parseList reads the shared parameters and hands the resource's own ones to spec.extra. Unknown or
// repeated parameters and malformed values are KindInvalid, naming the parameter.
func parseList(values url.Values, spec listSpec) (ListQuery, error) {
	q := ListQuery{Page: 1, Limit: DefaultLimit, Sort: "created_at", Desc: true}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		vals := values[name]
		if len(vals) != 1 {
			return q, Invalidf("%s must be given once", name)
		}
		v := vals[0]
		var err error
		switch name {
		case "page":
			q.Page, err = intParam(name, v, 1, 1<<30)
		case "limit":
			q.Limit, err = intParam(name, v, 1, MaxLimit)
		case "sort":
			q.Sort, q.Desc = strings.TrimPrefix(v, "-"), strings.HasPrefix(v, "-")
			if !contains(spec.sorts, q.Sort) {
				err = Invalidf("sort must be one of %s, optionally prefixed with -", strings.Join(spec.sorts, ", "))
			}
		case "created_from":
			q.CreatedFrom, err = dateParam(name, v)
		case "created_to":
			q.CreatedTo, err = dateParam(name, v)
		case "status":
			q.Status, err = enumParam(name, v, spec.statuses)
		default:
			parse, ok := spec.extra[name]
			if !ok {
				return q, Invalidf("unknown query parameter %s", name)
			}
			err = parse(v)
		}
		if err != nil {
			return q, err
		}
	}
	if q.CreatedFrom != nil && q.CreatedTo != nil && q.CreatedTo.Start().Before(q.CreatedFrom.Start()) {
		return q, Invalidf("created_to must not be before created_from")
	}
	if len(q.Status) == 0 {
		for _, s := range spec.statuses {
			if s != spec.softDeleted {
				q.Status = append(q.Status, s)
			}
		}
	}
	return q, nil
}

func intParam(name, v string, minV, maxV int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < minV || n > maxV {
		if maxV == 1<<30 {
			return 0, Invalidf("%s must be an integer of at least %d", name, minV)
		}
		return 0, Invalidf("%s must be between %d and %d", name, minV, maxV)
	}
	return n, nil
}

func dateParam(name, v string) (*Date, error) {
	d, err := ParseDate(v)
	if err != nil {
		return nil, Invalidf("%s must be a date in the form YYYY-MM-DD", name)
	}
	return &d, nil
}

func moneyParam(name, v string) (*money.Cents, error) {
	c, err := money.Parse(v)
	if err != nil {
		return nil, Invalidf("%s %v", name, err)
	}
	return &c, nil
}

// enumParam reads a comma-separated list of allowed values.
func enumParam(name, v string, allowed []string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !contains(allowed, s) {
			return nil, Invalidf("%s must be a comma-separated list of %s", name, strings.Join(allowed, ", "))
		}
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// textParam reads a non-empty free-text parameter and folds it for matching.
func textParam(name, v string) (string, error) {
	f := Fold(v)
	if f == "" {
		return "", Invalidf("%s must not be empty", name)
	}
	if len(f) > 200 {
		return "", Invalidf("%s must be at most 200 characters", name)
	}
	return f, nil
}

// normalizedParam reads a parameter through the normaliser of its field, so that a filter accepts
// every spelling the field accepts (plate, cpf, cnpj).
func normalizedParam(name, v string, normalize func(string) (string, error)) (string, error) {
	s, err := normalize(v)
	if err != nil {
		return "", Invalidf("%s %v", name, err)
	}
	return s, nil
}
