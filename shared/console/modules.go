package console

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// What the activity and financial screens share: the cursor of their lists, the snapshot a form
// carries of the record it was loaded with (to say what a stale edit missed), and the choice of a
// linked record among several matches.

// moduleLimit is how many records a page of the modules' lists shows.
const moduleLimit = 25

// listCursor encodes where a page ended (the store's position and the page's number) as one query
// parameter.
func listCursor(page int, after string) string { return strconv.Itoa(page) + ":" + after }

// parseCursor reads a cursor parameter into the list query ("" leaves it on the first page).
func parseCursor(s string, q *patio.ListQuery) error {
	if s == "" {
		return nil
	}
	n, after, ok := strings.Cut(s, ":")
	page, err := strconv.Atoi(n)
	if !ok || err != nil || page < 2 || after == "" {
		return patio.Invalidf("cursor is not valid for this search")
	}
	q.Page, q.After = patio.Some(page), after
	return nil
}

// nextPage returns the query string of a list's next page: the filters of q with the next cursor;
// "" on the last page.
func nextPage(q url.Values, filters []string, page patio.ListQuery, next string) string {
	if next == "" {
		return ""
	}
	v := url.Values{}
	for _, k := range filters {
		if vals, ok := q[k]; ok {
			v[k] = vals
		}
	}
	v.Set("cursor", listCursor(page.Page.Value+1, next))
	return v.Encode()
}

// snapshot encodes a record's editable fields as its edit form was loaded with them (the hidden
// field loaded).
func snapshot(fields map[string]string) string {
	b, _ := json.Marshal(fields)
	return base64.RawURLEncoding.EncodeToString(b)
}

// changedSince lists, sorted, the fields whose current value differs from the snapshot the form
// was loaded with; all of them when the snapshot does not read.
func changedSince(loaded string, current map[string]string) []string {
	var was map[string]string
	b, err := base64.RawURLEncoding.DecodeString(loaded)
	if err != nil || json.Unmarshal(b, &was) != nil {
		was = nil
	}
	var out []string
	for k, v := range current {
		if was == nil || was[k] != v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ptrString is a field's value as the snapshot holds it ("" for none).
func ptrString(s *string) string { return derefOr(s, "") }

// revisionOf reads a form's revision field (0 when missing or malformed: the edit then applies
// only to revision 0, which no record has, and is refused as stale).
func revisionOf(v url.Values) int {
	n, _ := strconv.Atoi(v.Get("revision"))
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }
