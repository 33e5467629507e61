package webhook

import (
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Page sizes of a delivery list.
const (
	DefaultDeliveryLimit = 50
	MaxDeliveryLimit     = 500
)

// DeliveryQuery selects a page of a webhook's deliveries: of the given statuses (all when none),
// created within [Since, Until] (either bound zero: open), of the given event types (all when
// none), at most Limit of them, after Cursor (the previous page's next cursor; "" for the first
// page). Deliveries come newest first.
type DeliveryQuery struct {
	Statuses     []string
	Types        []string
	Since, Until time.Time
	Limit        int
	Cursor       string
}

// ParseDeliveryStatuses reads a comma-separated list of delivery statuses ("" for all), each
// known (KindInvalid otherwise), duplicates removed.
func ParseDeliveryStatuses(s string) ([]string, error) {
	var out []string
	for _, st := range strings.Split(s, ",") {
		st = strings.TrimSpace(st)
		if st == "" {
			continue
		}
		if _, err := ParseDeliveryStatus(st); err != nil {
			return nil, err
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}

// Check returns the query with its defaults (Limit DefaultDeliveryLimit, every status), or
// KindInvalid naming what is wrong.
func (q DeliveryQuery) Check() (DeliveryQuery, error) {
	for _, st := range q.Statuses {
		if _, err := ParseDeliveryStatus(st); err != nil {
			return q, err
		}
	}
	if len(q.Statuses) == 0 {
		q.Statuses = slices.Clone(DeliveryStatuses)
	}
	for _, typ := range q.Types {
		if !slices.Contains(EventTypes, typ) {
			return q, patio.Invalidf("unknown event type %q; known types: %s", typ, strings.Join(EventTypes, ", "))
		}
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultDeliveryLimit
	case q.Limit < 1 || q.Limit > MaxDeliveryLimit:
		return q, patio.Invalidf("limit must be between 1 and %d", MaxDeliveryLimit)
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return q, patio.Invalidf("until must not be before since")
	}
	return q, nil
}

// DeliveryPage is one page of a delivery list.
type DeliveryPage struct {
	Deliveries []Delivery `json:"deliveries"`
	// NextCursor gives the next page; "" on the last.
	NextCursor string `json:"next_cursor"`
}
