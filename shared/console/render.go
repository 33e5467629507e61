package console

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

//go:embed templates static
var assets embed.FS

// pages holds each page's template set (the common layout and pieces, and the page's view), parsed
// on the page's first use: a cold start parses only what it serves.
var pages sync.Map // name → *template.Template

// page returns a page's template set; false when the console has no such view.
func page(name string) (*template.Template, bool) {
	if t, ok := pages.Load(name); ok {
		return t.(*template.Template), true
	}
	t, err := parsePage(name)
	if err != nil {
		return nil, false
	}
	actual, _ := pages.LoadOrStore(name, t)
	return actual.(*template.Template), true
}

// parsePage parses a page's view with the common templates.
func parsePage(name string) (*template.Template, error) {
	view := "templates/views/" + name + ".html"
	if _, err := fs.Stat(assets, view); err != nil {
		return nil, err
	}
	return template.New(name).Funcs(funcs).ParseFS(assets, "templates/common/*.html", view)
}

// funcs are the templates' helpers that need no request.
var funcs = template.FuncMap{
	"join":      strings.Join,
	"hasSuffix": strings.HasSuffix,
	"contains": func(list []string, s string) bool {
		return slices.Contains(list, s)
	},
	"query": query,
	// plate is a plate as the console shows it: in its Mercosul form.
	"plate": func(p string) string { return br.PlateKey(p) },
	// qs is a query string the console built with url.Values.Encode: escaped already, so the
	// template must not escape its = and & again.
	"qs":    func(s string) template.URL { return template.URL(s) }, //nolint:gosec // built by Encode
	"list":  func(s ...string) []string { return s },
	"cents": func(c money.Cents) int64 { return int64(c) },
	"str":   func(p *string) string { return derefOr(p, "") },
	"int":   func(r webhook.Rate) int { return int(r) },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			m[k] = kv[i+1]
		}
		return m
	},
}

// view is what a page's template receives: the request (its language, base path, session and
// role), the page's own data, the state of its form and a message about what was just done.
type view struct {
	*request
	Title string
	Data  any
	Form  *formState
	// Done is the message of the change that led here (a redirect's ?done=), already translated.
	Done string
	// Refresh, when set, reloads the page after that many seconds (a delivery still waiting for
	// its attempt).
	Refresh int
}

// WithForm returns the view with another form's state: for a page of several forms, each
// rendered by a template that reads .Form.
func (v view) WithForm(f *formState) view {
	v.Form = f
	return v
}

// T translates a message key.
func (v view) T(key string, args ...any) string { return v.p.T(key, args...) }

// ID is the request's id, which the page shows so that a person can quote it.
func (v view) ID() string { return v.id }

// Lang is the page's language.
func (v view) Lang() string { return v.p.Lang }

// Money formats an amount in the page's language.
func (v view) Money(c money.Cents) string { return v.p.Money(c) }

// Time formats an instant in the team's time zone and the page's language.
func (v view) Time(t any) string {
	switch t := t.(type) {
	case time.Time:
		return v.p.Time(t)
	case *time.Time:
		if t == nil {
			return "—"
		}
		return v.p.Time(*t)
	case patio.Timestamp:
		return v.p.Time(t.Time())
	case *patio.Timestamp:
		if t == nil {
			return "—"
		}
		return v.p.Time(t.Time())
	}
	return "—"
}

// Seconds is Time to the second: a delivery's attempts, minutes apart or less, are told apart.
func (v view) Seconds(t any) string {
	switch t := t.(type) {
	case time.Time:
		return v.p.Seconds(t)
	case *time.Time:
		if t != nil {
			return v.p.Seconds(*t)
		}
	}
	return v.Time(t)
}

// Date formats a calendar date in the page's language.
func (v view) Date(d patio.Date) string { return v.p.Date(d) }

// Overdue reports whether a due time has passed.
func (v view) Overdue(t *patio.Timestamp) bool { return t != nil && t.Time().Before(v.now) }

// Local formats an instant as a datetime-local field shows it, in the team's time zone.
func (v view) Local(t *patio.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.Time().In(v.p.Loc).Format("2006-01-02T15:04")
}

// Percent is n as a share of of, rounded ("" when of is 0).
func (v view) Percent(n, of int) string {
	if of <= 0 {
		return ""
	}
	return v.p.Number(n*100/of) + "%"
}

// Number formats a count in the page's language.
func (v view) Number(n int) string { return v.p.Number(n) }

// SignedIn reports whether a person is signed in.
func (v view) SignedIn() bool { return v.sess != nil }

// Email is the signed-in person's email.
func (v view) Email() string {
	if v.sess == nil {
		return ""
	}
	return v.sess.Email
}

// Team is the current team.
func (v view) Team() patio.Team { return v.team }

// Teams are the teams the signed-in person may switch to.
func (v view) Teams() []patio.SessionTeam {
	if v.sess == nil {
		return nil
	}
	return v.sess.Teams
}

// Role is the signed-in member's role, translated.
func (v view) Role() string { return v.T("role." + string(v.member.Role)) }

// PhasesOf are a deal's phases, in the pipeline's order (the board's move form).
func (v view) PhasesOf() []string { return patio.DealPhases }

// Languages are the languages the switch offers.
func (v view) Languages() []string { return locale.Languages }

// Path is the page's own path (for the language switch's way back).
func (v view) Path() string {
	p := strings.TrimPrefix(v.r.URL.Path, "")
	if v.r.URL.RawQuery != "" && v.r.Method == http.MethodGet {
		p += "?" + v.r.URL.RawQuery
	}
	return p
}

// In reports whether the page is in the section whose pages start with prefix ("/console/webhooks"
// holds the webhook's deliveries too): the navigation marks that section as the current one.
func (v view) In(prefix string) bool {
	p := v.r.URL.Path
	if prefix == "/console/webhooks" && strings.HasPrefix(p, "/console/deliveries") {
		return true
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/") || strings.HasPrefix(p, prefix+".")
}

// formState is a form as shown: its values (as entered, when it comes back refused), its problems
// by field, and its one-time token.
type formState struct {
	Values url.Values
	// Problems are the translated problems by field ("" for those of no field).
	Problems map[string][]string
	Token    string
}

// Value returns a field's value.
func (f *formState) Value(name string) string {
	if f == nil {
		return ""
	}
	return f.Values.Get(name)
}

// Has reports whether a field (a checkbox, a multiple select) holds value.
func (f *formState) Has(name, value string) bool {
	return f != nil && slices.Contains(f.Values[name], value)
}

// ProblemsOf returns a field's problems.
func (f *formState) ProblemsOf(name string) []string {
	if f == nil {
		return nil
	}
	return f.Problems[name]
}

// Invalid reports whether the form has problems.
func (f *formState) Invalid() bool { return f != nil && len(f.Problems) > 0 }

// newForm returns an empty form with a fresh one-time token.
func newForm(values url.Values) *formState {
	if values == nil {
		values = url.Values{}
	}
	return &formState{Values: values, Token: newToken()}
}

// refused returns the form as entered, with err's problems translated and put next to their
// fields (known is the form's fields: a problem of another field is shown at the top), and a new
// token.
func refused(p locale.Printer, values url.Values, err error, known ...string) *formState {
	f := newForm(values)
	f.Problems = map[string][]string{}
	var e *patio.Error
	if errors.As(err, &e) && len(e.Details) > 0 {
		for _, d := range e.Details {
			field := d.Field
			if !slices.Contains(known, field) {
				field = ""
			}
			f.Problems[field] = append(f.Problems[field], p.Problem(d))
		}
		return f
	}
	field := ""
	// A duplicate plate, CPF or CNPJ is the problem of the field that holds it.
	if e != nil && e.Kind == patio.KindDuplicate {
		switch {
		case e.Code == patio.CodePlateDuplicate:
			field = "plate"
		case len(e.Args) > 0:
			if f, ok := e.Args[0].(string); ok && slices.Contains(known, f) {
				field = f
			}
		}
		if !slices.Contains(known, field) {
			field = ""
		}
	}
	// A link that names no record of the team is the link field's problem.
	if e != nil && e.Code == patio.CodeNotOfThisTeam && len(e.Args) == 2 {
		if link, ok := e.Args[0].(string); ok && slices.Contains(known, strings.TrimSuffix(link, "_id")) {
			field = strings.TrimSuffix(link, "_id")
		}
	}
	f.Problems[field] = append(f.Problems[field], p.Error(err))
	return f
}

// newToken returns a random token for a form.
func newToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// render writes a page: the view's template in the layout, with status.
func (c *Console) render(rq *request, status int, name string, v view) {
	t, ok := page(name)
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
	c.render(rq, status, "error", view{Title: rq.p.T(title), Data: map[string]any{"Message": rq.p.Error(err),
		"Status": status}})
}

// done redirects (303) to a console path with the message of what was done.
func (c *Console) done(rq *request, path, message string) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	c.redirect(rq, path+sep+"done="+url.QueryEscape(message))
}

// static serves the console's stylesheet and images.
func (c *Console) static(rq *request) {
	name := rq.r.PathValue("file")
	data, err := assets.ReadFile("static/" + name)
	if err != nil || strings.Contains(name, "/") {
		c.fail(rq, patio.NotFoundf("page not found"))
		return
	}
	h := rq.w.Header()
	switch path.Ext(name) {
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	case ".svg":
		h.Set("Content-Type", "image/svg+xml")
	case ".js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	default:
		h.Set("Content-Type", "application/octet-stream")
	}
	h.Set("Cache-Control", "public, max-age=3600")
	_, _ = rq.w.Write(data)
}

// formTokenLife is how long a form's one-time token is remembered once posted.
const formTokenLife = 24 * time.Hour

// createOnce runs a record's creation once per form token (once): a refusal by the use case (a
// problem, a conflict, a duplicate) comes back through refuse with the form, another error fails
// the page, and the created record's page (base and the id create returns) says doneKey.
func (c *Console) createOnce(rq *request, values url.Values, refuse func(error), base, doneKey string, create func() (string, error)) {
	c.once(rq, values, func() (string, bool) {
		id, err := create()
		if k := patio.KindOf(err); k == patio.KindInvalid || k == patio.KindConflict || k == patio.KindDuplicate {
			refuse(err)
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.done(rq, base+id, doneKey)
		return base + id, true
	})
}

// once runs a form's creation at most once per one-time token (the form_token field): a second
// post of the same form (a reload, a double click) creates nothing and is sent to what the first
// created. create renders its own answer and returns the path of what it created, or false when it
// created nothing (a refused form, whose token is then given back).
func (c *Console) once(rq *request, values url.Values, create func() (string, bool)) {
	token := values.Get("form_token")
	if token == "" {
		c.fail(rq, patio.Invalidf("the form is incomplete; reload the page"))
		return
	}
	ctx := rq.ctx()
	hash := patio.HashKey(token)
	first, result, err := c.d.Store.ClaimForm(ctx, hash, rq.now, rq.now.Add(formTokenLife))
	if err != nil {
		c.fail(rq, err)
		return
	}
	if !first {
		if result != "" {
			c.done(rq, result, "done.form.again")
			return
		}
		c.fail(rq, patio.Errorf(patio.KindPrecondition, "this form was already sent"))
		return
	}
	path, created := create()
	if !created {
		_ = c.d.Store.ReleaseForm(ctx, hash)
		return
	}
	if err := c.d.Store.SetFormResult(ctx, hash, path); err != nil {
		c.d.Logger.ErrorContext(ctx, "record form result", slog.String("request_id", rq.id), slog.String("error", err.Error()))
	}
}
