package console

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/httplog"
	"github.com/patio-dev/patio/shared/patio"
)

// requestDeadline bounds the work of one request, below the function's timeout.
const requestDeadline = 8 * time.Second

// request is one request to the console, with what every handler needs: where the console is
// (base path), who asks (session, membership, team) and in which language.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	id   string
	base string // the base path before /console ("" or API Gateway's "/prod")
	now  time.Time
	p    locale.Printer

	// Set for signed-in requests.
	sess   *patio.Session
	member patio.Member
	team   patio.Team
	// sessID is the session's id, which a change of its team writes into a new cookie.
	sessID string
	// early is the page's data read started beside the session's (see handleEarly), nil when none.
	early *pending
}

// ctx returns the request's context.
func (rq *request) ctx() context.Context { return rq.r.Context() }

// URL returns a console path under the request's base path ("/console/webhooks" →
// "/prod/console/webhooks").
func (rq *request) URL(path string) string { return rq.base + path }

// Can reports whether the signed-in member's role holds the permission (see patio.Permission).
func (rq *request) Can(p string) bool {
	return rq.sess != nil && rq.member.Role.May(patio.Permission(p))
}

// contentPolicy is the pages' Content-Security-Policy: their forms post to the console itself,
// and to formTarget too when it is not "" (the photos' bucket, on a photo's upload page).
func (c *Console) contentPolicy(formTarget string) string {
	forms := "'self'"
	if formTarget != "" {
		forms += " " + formTarget
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:" + c.photosSource() +
		"; form-action " + forms + "; frame-ancestors 'none'; base-uri 'none'"
}

// ServeHTTP serves the console: security headers on every answer, then the route, with 404 for an
// unknown route or method.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestDeadline)
	defer cancel()
	r = r.WithContext(ctx)
	h := w.Header()
	// The one script (copy buttons, an enhancement) and the styles are the console's own files.
	h.Set("Content-Security-Policy", c.contentPolicy(""))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	rq := c.newRequest(w, r)
	h.Set("X-Request-Id", rq.id)
	start := time.Now()
	sw := &httplog.StatusWriter{ResponseWriter: w}
	rq.w = sw
	defer func() {
		if p := recover(); p != nil {
			c.d.Logger.ErrorContext(ctx, "panic", slog.String("request_id", rq.id), slog.Any("panic", p))
			if sw.Status == 0 {
				c.fail(rq, patio.Internal(errors.New("panic")))
			}
		}
		c.d.Logger.InfoContext(ctx, "console request", slog.String("request_id", rq.id), slog.String("team_id", rq.team.ID),
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", sw.Status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
	}()
	if _, pattern := c.mux.Handler(r); pattern == "" {
		c.loadSession(rq) // a signed-in person's 404 page keeps their navigation
		c.fail(rq, patio.NotFoundf("page not found"))
		return
	}
	r = r.WithContext(context.WithValue(ctx, requestKey{}, rq))
	rq.r = r
	c.mux.ServeHTTP(sw, r)
}

// requestKey is the context key of the console's request while the mux routes it.
type requestKey struct{}

// newRequest reads what every request needs before routing: its id, base path and language.
func (c *Console) newRequest(w http.ResponseWriter, r *http.Request) *request {
	rq := &request{w: w, r: r, now: c.d.Now()}
	if gw, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
		rq.id = gw.RequestID
		// API Gateway's own domain puts the stage before the path the function sees.
		if strings.HasSuffix(gw.Path, r.URL.Path) {
			rq.base = strings.TrimSuffix(gw.Path, r.URL.Path)
		}
	}
	if rq.id == "" {
		rq.id = uuid.NewString()
	}
	rq.p = locale.New(session.Language(r, nil), time.UTC)
	return rq
}

// handler is a handler of the console.
type handler func(rq *request)

// access is what a route requires.
type access struct {
	// signedIn routes need a session; a signed-out GET is sent to the login page, a signed-out
	// POST is 401.
	signedIn bool
	// perm is the permission the route needs ("" for any role).
	perm patio.Permission
	// anyTeam marks signed-in POSTs that are not about the current team (switching team, the
	// language, one's own password, signing out): they carry no team field.
	anyTeam bool
	// early starts the page's data read for the team the session cookie names (handleEarly).
	early func(rq *request, teamID string)
}

// handle registers a route.
func (c *Console) handle(pattern string, a access, h handler) {
	c.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		rq, _ := r.Context().Value(requestKey{}).(*request)
		rq.r = r
		c.serve(rq, a, h)
	})
}

// serve checks a request against its route's access, then runs the handler.
func (c *Console) serve(rq *request, a access, h handler) {
	r := rq.r
	post := r.Method == http.MethodPost
	if post && session.CrossSite(r) {
		c.fail(rq, patio.Errorf(patio.KindForbidden, "cross-site request refused"))
		return
	}
	startEarly(rq, a)
	if err := c.loadSession(rq); err != nil {
		c.fail(rq, err)
		return
	}
	if a.signedIn && rq.sess == nil {
		if post {
			c.fail(rq, patio.Errorf(patio.KindUnauthenticated, "sign in first"))
			return
		}
		next := r.URL.Path
		if r.URL.RawQuery != "" {
			next += "?" + r.URL.RawQuery
		}
		c.redirect(rq, loginPath+"?next="+url.QueryEscape(next))
		return
	}
	if rq.sess != nil {
		rq.r = r.WithContext(patio.WithActor(r.Context(), patio.Actor{Kind: patio.ActorUser, ID: rq.sess.Email,
			IP: clientIP(r), RequestID: rq.id}))
		w := rq.w
		w.Header().Set("Cache-Control", "no-store")
	}
	if a.perm != "" && !rq.member.Role.May(a.perm) {
		c.fail(rq, patio.Errorf(patio.KindForbidden, "your role does not allow this"))
		return
	}
	if post && a.signedIn && !a.anyTeam {
		if err := rq.r.ParseForm(); err != nil {
			c.fail(rq, patio.Invalidf("the form could not be read"))
			return
		}
		if rq.r.PostForm.Get("team") != rq.sess.TeamID {
			c.fail(rq, errOtherTeam)
			return
		}
	}
	h(rq)
}

// errOtherTeam refuses a form rendered for a team other than the session's current one (another
// tab switched team meanwhile).
var errOtherTeam = patio.Errorf(patio.KindPrecondition, "this form belongs to another team than the one you are now working in; reload the page")

// clientIP is the address the request came from: API Gateway's source IP (which the proxy puts in
// RemoteAddr), or the peer's address.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// loadSession finds the request's session, its member and team (see session.Load): a signed-out
// request keeps rq.sess nil, and the cookie of a session that is over is cleared.
func (c *Console) loadSession(rq *request) error {
	if rq.sess != nil {
		return nil
	}
	st, err := session.Load(rq.ctx(), c.d.Sessions, rq.r, rq.now)
	if st.Ended {
		c.clearCookie(rq, session.Cookie)
	}
	if err != nil || st.Session == nil {
		return err
	}
	rq.sess, rq.member, rq.team, rq.sessID = st.Session, st.Member, st.Team, st.ID
	loc, err := time.LoadLocation(rq.team.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	rq.p = locale.New(session.Language(rq.r, rq.sess), loc)
	return nil
}

// setCookie sets one of the console's cookies for the console's path (see session.SetCookie).
func (c *Console) setCookie(rq *request, name, value string, maxAge time.Duration) {
	session.SetCookie(rq.w, rq.URL(homePath), name, value, maxAge)
}

// clearCookie removes one of the console's cookies.
func (c *Console) clearCookie(rq *request, name string) {
	session.ClearCookie(rq.w, rq.URL(homePath), name)
}

// redirect answers 303 to a console path (under the base path).
func (c *Console) redirect(rq *request, path string) {
	http.Redirect(rq.w, rq.r, rq.URL(path), http.StatusSeeOther)
}

// filters returns the request's query without its empty values: a filter left at "any" (an empty
// field, the "any" option of a select) filters nothing.
func (rq *request) filters() url.Values {
	q := rq.r.URL.Query()
	for k, vs := range q {
		kept := vs[:0]
		for _, v := range vs {
			if strings.TrimSpace(v) != "" {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(q, k)
		} else {
			q[k] = kept
		}
	}
	return q
}
