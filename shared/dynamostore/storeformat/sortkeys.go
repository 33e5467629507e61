package storeformat

import (
	"fmt"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// SortKey builds a record's index sort key for one sort field: "<status>#1#<value>\x01<id>" when
// the record has a value, "<status>#0#<id>" when it has none. The status prefix gives each status
// its own range, so a list reads only the statuses it shows (soft-deleted records are never read
// to serve a default list); the 1#/0# split lets it read records without a value after the others
// in either direction; the id breaks ties in the direction of the sort (docs/storage.md).
func SortKey(status string, value *string, id string) string {
	if value == nil {
		return status + "#0#" + id
	}
	return status + "#1#" + strings.Map(func(r rune) rune {
		if r < 0x20 {
			return -1
		}
		return r
	}, *value) + "\x01" + id
}

// ValuedRange is the inclusive range of the index sort keys (SortKey) of a status's records that
// have a value, of the rows, or of a facet's copies when facetKey is not "" (whose index
// attributes are the facet key, "#", then the row's).
func ValuedRange(facetKey, status string) (lo, hi string) {
	base := status + "#1"
	if facetKey != "" {
		base = facetKey + "#" + base
	}
	return base + "#", base + "$"
}

// Padded is a number as sort keys hold it: zero-padded to width digits, so that keys sort as
// the numbers do (money in cents takes 12, years 4).
func Padded(width int, n int64) *string { s := fmt.Sprintf("%0*d", width, n); return &s }

// folded is a text as sort keys and facets hold it (patio.Fold).
func folded(s string) *string { f := patio.Fold(s); return &f }
