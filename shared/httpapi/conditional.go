package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// etag is the strong entity tag of a record at a revision: it changes exactly when the revision does.
func etag(revision int) string { return `"r` + strconv.Itoa(revision) + `"` }

// entityTag is one entity tag of an If-Match or If-None-Match header.
type entityTag struct {
	weak  bool
	value string // between the quotes
}

// parseETags reads an If-Match or If-None-Match header: "*" (any is true) or a comma-separated
// list of entity tags ("r3", W/"r2"). A header that is neither is KindInvalid naming it.
func parseETags(name, header string) (tags []entityTag, any bool, err error) {
	h := strings.TrimSpace(header)
	if h == "*" {
		return nil, true, nil
	}
	for part := range strings.SplitSeq(h, ",") {
		part = strings.TrimSpace(part)
		var t entityTag
		if rest, ok := strings.CutPrefix(part, "W/"); ok {
			t.weak, part = true, rest
		}
		if len(part) < 2 || part[0] != '"' || part[len(part)-1] != '"' || strings.ContainsAny(part[1:len(part)-1], "\" ") {
			return nil, false, headerProblem(name)
		}
		t.value = part[1 : len(part)-1]
		tags = append(tags, t)
	}
	if len(tags) == 0 {
		return nil, false, headerProblem(name)
	}
	return tags, false, nil
}

// headerProblem is the problem of a header that is neither * nor a list of entity tags.
func headerProblem(name string) error {
	return problem(patio.InHeader, name, "%s must be * or a comma-separated list of quoted entity tags", name)
}

// problem returns a KindInvalid error with one problem of the member field sent in in.
func problem(in, field, format string, args ...any) error {
	var p patio.Problems
	p.Add(in, field, format, args...)
	return p.Err()
}

// revisionOf returns the revision an entity tag of ours names, and whether it is one.
func revisionOf(t entityTag) (int, bool) {
	rest, ok := strings.CutPrefix(t.value, "r")
	if !ok || rest == "" || rest[0] == '0' || strings.TrimLeft(rest, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// ifMatch reads the If-Match header of a PUT or DELETE into the domain's precondition. If-Match
// compares strongly: a weak tag, or one that names no revision of ours, matches nothing (so the
// answer is 412), and a request with only such tags is refused whatever the record.
func ifMatch(r *http.Request) (patio.Precondition, error) {
	h, ok := r.Header["If-Match"]
	if !ok {
		return patio.Precondition{}, nil
	}
	tags, anyTag, err := parseETags("If-Match", strings.Join(h, ","))
	if err != nil || anyTag {
		return patio.Precondition{Any: anyTag}, err
	}
	pre := patio.Precondition{Revisions: []int{}}
	for _, t := range tags {
		if n, ok := revisionOf(t); ok && !t.weak {
			pre.Revisions = append(pre.Revisions, n)
		}
	}
	if len(pre.Revisions) == 0 {
		pre.Revisions = append(pre.Revisions, 0) // no record has revision 0: nothing matches
	}
	return pre, nil
}

// noneMatch reports whether a GET's If-None-Match header matches a record at revision (weak
// comparison, as RFC 9110 says for If-None-Match). A malformed header is KindInvalid.
func noneMatch(r *http.Request, revision int) (bool, error) {
	h, ok := r.Header["If-None-Match"]
	if !ok {
		return false, nil
	}
	tags, anyTag, err := parseETags("If-None-Match", strings.Join(h, ","))
	if err != nil || anyTag {
		return anyTag, err
	}
	for _, t := range tags {
		if n, ok := revisionOf(t); ok && n == revision {
			return true, nil
		}
	}
	return false, nil
}

// writeNotModified answers 304: no body, the ETag (X-Request-Id is already set).
func writeNotModified(w http.ResponseWriter, revision int) {
	w.Header().Set("ETag", etag(revision))
	w.WriteHeader(http.StatusNotModified)
}
