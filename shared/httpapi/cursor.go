package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// A cursor is where a list's page ended, for the following page: the
// store's position after the page's last record, that page's number, and a fingerprint of the
// query it belongs to (every parameter but cursor and page), so that a cursor sent with other
// filters, sort or limit is refused. It is base64url JSON followed by an HMAC-SHA256 tag, so that
// a cursor edited by hand is refused too. The tag is for tamper evidence, not secrecy: a cursor
// holds nothing the client was not sent (a record's sort value and id), and whatever it says, a
// list only ever reads the caller's own team.
type cursor struct {
	Page  int    `json:"p"`
	After string `json:"a"`
	Query string `json:"q"`
}

// cursorKey keys the cursors' tags.
var cursorKey = []byte("patio cursor v1")

func (c cursor) encode() string {
	data, _ := json.Marshal(c)
	body := base64.RawURLEncoding.EncodeToString(data)
	return body + "." + base64.RawURLEncoding.EncodeToString(cursorTag(body))
}

func cursorTag(body string) []byte {
	m := hmac.New(sha256.New, cursorKey)
	m.Write([]byte(body))
	return m.Sum(nil)[:16]
}

// decodeCursor reads a cursor sent for the query values (which include it): a cursor that does
// not verify, or belongs to another query, or is sent with page, is KindInvalid.
func decodeCursor(s string, values url.Values) (cursor, error) {
	bad := problem(patio.InQuery, "cursor", "cursor is not a cursor this API issued; send next_cursor as it was received")
	body, tag, ok := strings.Cut(s, ".")
	got, err := base64.RawURLEncoding.DecodeString(tag)
	if !ok || err != nil || !hmac.Equal(got, cursorTag(body)) {
		return cursor{}, bad
	}
	data, err := base64.RawURLEncoding.DecodeString(body)
	var c cursor
	if err != nil || json.Unmarshal(data, &c) != nil || c.Page < 2 || c.After == "" {
		return cursor{}, bad
	}
	if _, ok := values["page"]; ok {
		return cursor{}, problem(patio.InQuery, "cursor", "cursor and page cannot be sent together")
	}
	if c.Query != queryFingerprint(values) {
		return cursor{}, problem(patio.InQuery, "cursor",
			"cursor belongs to a list with other filters, sort or limit; send it with the same parameters")
	}
	return c, nil
}

// queryFingerprint identifies a list query by its parameters, all but cursor and page.
func queryFingerprint(values url.Values) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if k == "cursor" || k == "page" {
			continue
		}
		for _, v := range values[k] {
			h.Write([]byte(k + "=" + v + "&"))
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}
