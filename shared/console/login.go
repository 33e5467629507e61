package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
)

// login signs a person in with their email and password: wrong ones get one generic message; a
// temporary password leads to the new-password form.
func (c *Console) login(rq *request) {
	ctx := rq.ctx()
	email := strings.ToLower(strings.TrimSpace(rq.r.PostFormValue("email")))
	password := rq.r.PostFormValue("password")
	next := safeNext(rq.r.PostFormValue("next"))
	values := url.Values{"email": {email}, "next": {next}}
	if email == "" || password == "" {
		c.render(rq, http.StatusUnprocessableEntity, "login", view{Title: rq.p.T("login.title"),
			Form: render.Refused(rq.p, values, patio.Errorf(patio.KindUnauthenticated, "wrong email or password"))})
		return
	}
	res, err := c.d.Identity.SignIn(ctx, email, password)
	if patio.IsKind(err, patio.KindUnauthenticated) {
		c.render(rq, http.StatusUnprocessableEntity, "login", view{Title: rq.p.T("login.title"),
			Form: render.Refused(rq.p, values, err)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	if res.NewPasswordRequired {
		id, hash, err := patio.NewSessionID()
		if err == nil {
			err = c.d.SignIns.PutSignIn(ctx, hash, patio.PendingSignIn{Email: email, Challenge: res.Challenge, Next: next,
				ExpiresAt: rq.now.Add(patio.SignInWait)})
		}
		if err != nil {
			c.fail(rq, err)
			return
		}
		c.setCookie(rq, session.SignInCookie, id, patio.SignInWait)
		c.render(rq, http.StatusOK, "new_password", view{Title: rq.p.T("newpassword.title"), Form: render.NewForm(nil)})
		return
	}
	c.startSession(rq, email, next)
}
