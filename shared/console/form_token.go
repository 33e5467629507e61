package console

import (
	"log/slog"
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// formTokenLife is how long a form's one-time token is remembered once posted.
const formTokenLife = 24 * time.Hour

// tokenPage serves a page with a creation form (a new record's; the keys and team pages, which
// hold the new key's and the invitation's) at an address that carries its form's one-time token
// (form_token): a page opened without one is sent (303) to the same address with a fresh one.
// Signed-in pages are no-store, so Back after the form was sent loads that address again: the form
// comes back with the token its first post used, and sending it again shows what that post
// created instead of creating it again. A link to the page (the menu's, a won deal's) starts a
// new form.
func (c *Console) tokenPage(h handler) handler {
	return func(rq *request) {
		q := rq.r.URL.Query()
		if render.ValidToken(q.Get("form_token")) {
			h(rq)
			return
		}
		q.Set("form_token", render.NewToken())
		c.redirect(rq, rq.r.URL.Path+"?"+q.Encode())
	}
}

// newForm returns a creation form with values and the one-time token its page's address carries
// (see tokenPage).
func (rq *request) newForm(values url.Values) *render.Form {
	return render.TokenForm(values, rq.r.URL.Query().Get("form_token"))
}

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
	first, result, err := c.d.Forms.ClaimForm(ctx, hash, rq.now, rq.now.Add(formTokenLife))
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
		_ = c.d.Forms.ReleaseForm(ctx, hash)
		return
	}
	if err := c.d.Forms.SetFormResult(ctx, hash, path); err != nil {
		c.d.Logger.ErrorContext(ctx, "record form result", slog.String("request_id", rq.id), slog.String("error", err.Error()))
	}
}
