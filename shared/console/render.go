package console

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// render writes a page: the view's template in the layout, with status.
func (c *Console) render(rq *request, status int, name string, v view) {
	t, ok := render.Page(name)
	if !ok {
		c.fail(rq, patio.Internal(errors.New("console: no view "+name)))
		return
	}
	v.request = rq
	q := rq.r.URL.Query()
	if done := q.Get("done"); strings.HasPrefix(done, "done.") && rq.p.T(done) != done {
		v.Done = rq.p.T(done)
		if n, err := strconv.Atoi(q.Get("n")); err == nil && strings.Contains(v.Done, "%d") {
			v.Done = rq.p.T(done, n)
		}
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		c.d.Logger.ErrorContext(rq.ctx(), "render", slog.String("request_id", rq.id), slog.String("view", name),
			slog.String("error", err.Error()))
		http.Error(rq.w, "internal error", http.StatusInternalServerError)
		return
	}
	rq.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	rq.w.WriteHeader(status)
	_, _ = rq.w.Write(buf.Bytes())
}

// fail answers an error as a page: 404, 403, 401 (a signed-out post), 409 (a form of another team,
// a stale edit), 422 (a change refused), 500 (logged once here, with the request id; the page shows
// only the id).
func (c *Console) fail(rq *request, err error) {
	status, title := c.failure(rq, err)
	c.render(rq, status, "error", view{Title: rq.p.T(title), Data: map[string]any{"Message": rq.p.Error(err),
		"Status": status}})
}

// failure is the status and the page title of an error; an internal one is logged, here only.
func (c *Console) failure(rq *request, err error) (int, string) {
	status, title := http.StatusInternalServerError, "error.internal.title"
	switch patio.KindOf(err) {
	case patio.KindNotFound:
		status, title = http.StatusNotFound, "error.notfound.title"
	case patio.KindForbidden:
		status, title = http.StatusForbidden, "error.forbidden.title"
	case patio.KindUnauthenticated:
		status, title = http.StatusUnauthorized, "error.signedout.title"
	case patio.KindPrecondition:
		status, title = http.StatusConflict, "error.stale.title"
	case patio.KindInvalid, patio.KindConflict, patio.KindDuplicate:
		status, title = http.StatusUnprocessableEntity, "error.refused.title"
	default:
		c.d.Logger.ErrorContext(rq.ctx(), "internal error", slog.String("request_id", rq.id),
			slog.String("method", rq.r.Method), slog.String("path", rq.r.URL.Path), slog.String("error", err.Error()))
	}
	return status, title
}

// done redirects (303) to a console path with the message of what was done; the message goes in
// the query, before the path's fragment ("…#photos") if it has one.
func (c *Console) done(rq *request, path, message string) {
	path, fragment, hasFragment := strings.Cut(path, "#")
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	path += sep + "done=" + url.QueryEscape(message)
	if hasFragment {
		path += "#" + fragment
	}
	c.redirect(rq, path)
}
