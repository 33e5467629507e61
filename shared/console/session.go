package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// safeNext returns a page to go to after signing in: a console path, nothing else (no other site,
// no scheme-relative URL); "/console/" otherwise.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/console/") || strings.Contains(next, "//") || strings.Contains(next, `\`) ||
		strings.HasPrefix(next, "/console/login") {
		return "/console/"
	}
	return next
}

// loginPage shows the sign-in form; a signed-in person goes straight on.
func (c *Console) loginPage(rq *request) {
	next := safeNext(rq.r.URL.Query().Get("next"))
	if rq.sess != nil {
		c.redirect(rq, next)
		return
	}
	c.render(rq, http.StatusOK, "login", view{Title: rq.p.T("login.title"),
		Form: newForm(url.Values{"next": {next}})})
}

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
			Form: refused(rq.p, values, patio.Errorf(patio.KindUnauthenticated, "wrong email or password"))})
		return
	}
	res, err := c.d.Identity.SignIn(ctx, email, password)
	if patio.IsKind(err, patio.KindUnauthenticated) {
		c.render(rq, http.StatusUnprocessableEntity, "login", view{Title: rq.p.T("login.title"),
			Form: refused(rq.p, values, err)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	if res.NewPasswordRequired {
		id, hash, err := patio.NewSessionID()
		if err == nil {
			err = c.d.Store.PutSignIn(ctx, hash, patio.PendingSignIn{Email: email, Challenge: res.Challenge, Next: next,
				ExpiresAt: rq.now.Add(patio.SignInWait)})
		}
		if err != nil {
			c.fail(rq, err)
			return
		}
		c.setCookie(rq, signInCookie, id, patio.SignInWait)
		c.render(rq, http.StatusOK, "new_password", view{Title: rq.p.T("newpassword.title"), Form: newForm(nil)})
		return
	}
	c.startSession(rq, email, next)
}

// newPassword sets the new password a temporary one requires, and signs the person in.
func (c *Console) newPassword(rq *request) {
	ctx := rq.ctx()
	ck, err := rq.r.Cookie(signInCookie)
	if err != nil {
		c.fail(rq, patio.Errorf(patio.KindUnauthenticated, "the sign-in has expired; sign in again"))
		return
	}
	hash := patio.HashKey(ck.Value)
	pending, err := c.d.Store.SignIn(ctx, hash, rq.now)
	if patio.IsKind(err, patio.KindNotFound) {
		err = patio.Errorf(patio.KindUnauthenticated, "the sign-in has expired; sign in again")
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	password := rq.r.PostFormValue("password")
	err = patio.CheckPassword("password", password)
	if err == nil {
		err = c.d.Identity.CompleteSignIn(ctx, pending.Email, pending.Challenge, password)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusUnprocessableEntity, "new_password", view{Title: rq.p.T("newpassword.title"),
			Form: refused(rq.p, nil, err, "password")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	_ = c.d.Store.DeleteSignIn(ctx, hash)
	c.clearCookie(rq, signInCookie)
	c.startSession(rq, pending.Email, pending.Next)
}

// startSession begins a session for a person who proved who they are, in the first of their
// teams, and goes to next. A person with no team left cannot sign in.
func (c *Console) startSession(rq *request, email, next string) {
	ctx := rq.ctx()
	ms, err := c.d.Store.Memberships(ctx, email)
	if err != nil {
		c.fail(rq, err)
		return
	}
	if len(ms) == 0 {
		c.fail(rq, patio.Errorf(patio.KindForbidden, "your account belongs to no team; ask a team's owner to invite you"))
		return
	}
	id, hash, err := patio.NewSessionID()
	if err != nil {
		c.fail(rq, err)
		return
	}
	lang := ""
	if ck, err := rq.r.Cookie(langCookie); err == nil {
		lang = locale.Supported(ck.Value)
	}
	s := patio.Session{Hash: hash, Email: email, TeamID: ms[0].TeamID, Teams: sessionTeams(ms), Lang: lang,
		CreatedAt: rq.now, SeenAt: rq.now}
	if err := c.d.Store.CreateSession(ctx, s); err != nil {
		c.fail(rq, err)
		return
	}
	for _, m := range ms {
		if err := c.d.Store.ActivateMember(ctx, m.TeamID, email, rq.now); err != nil {
			c.fail(rq, err)
			return
		}
	}
	c.setCookie(rq, sessionCookie, id, patio.SessionMax)
	c.redirect(rq, next)
}

// logout ends the session at once.
func (c *Console) logout(rq *request) {
	if err := c.d.Store.DeleteSession(rq.ctx(), rq.sess.Hash); err != nil {
		c.fail(rq, err)
		return
	}
	c.clearCookie(rq, sessionCookie)
	c.done(rq, "/console/login", "done.signedout")
}

// switchLanguage keeps the language chosen: in the session when signed in, in a cookie otherwise
// (and for the sign-in page), then goes back to the page it came from.
func (c *Console) switchLanguage(rq *request) {
	lang := locale.Supported(rq.r.PostFormValue("lang"))
	if lang == "" {
		c.fail(rq, patio.Invalidf("lang must be pt-BR or en"))
		return
	}
	c.setCookie(rq, langCookie, lang, 365*24*time.Hour)
	if rq.sess != nil {
		rq.sess.Lang = lang
		if err := c.d.Store.SaveSession(rq.ctx(), *rq.sess); err != nil {
			c.fail(rq, err)
			return
		}
	}
	back := rq.r.PostFormValue("back")
	if back != "/console/login" && !strings.HasPrefix(back, "/console/login?") {
		back = safeNext(back)
	}
	c.redirect(rq, back)
}

// switchTeam makes another of the person's teams the current one.
func (c *Console) switchTeam(rq *request) {
	ctx := rq.ctx()
	team := rq.r.PostFormValue("team")
	ms, err := c.d.Store.Memberships(ctx, rq.sess.Email)
	if err != nil {
		c.fail(rq, err)
		return
	}
	i := slices.IndexFunc(ms, func(m patio.Member) bool { return m.TeamID == team })
	if i < 0 {
		c.fail(rq, patio.NotFoundf("team not found"))
		return
	}
	rq.sess.TeamID, rq.sess.Teams = team, sessionTeams(ms)
	if err := c.d.Store.SaveSession(ctx, *rq.sess); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/", "done.team.switched")
}

// passwordPage shows the form that changes one's password.
func (c *Console) passwordPage(rq *request) {
	c.render(rq, http.StatusOK, "password", view{Title: rq.p.T("password.title"), Form: newForm(nil)})
}

// changePassword changes the signed-in person's password.
func (c *Console) changePassword(rq *request) {
	current, password := rq.r.PostFormValue("current_password"), rq.r.PostFormValue("password")
	var p patio.Problems
	if current == "" {
		p.Add(patio.InBody, "current_password", "the current password is wrong")
	}
	if err := patio.CheckPassword("password", password); err != nil {
		p.AddError(patio.InBody, "password", err)
	}
	err := p.Err()
	if err == nil {
		err = c.d.Identity.ChangePassword(rq.ctx(), rq.sess.Email, current, password)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusUnprocessableEntity, "password", view{Title: rq.p.T("password.title"),
			Form: refused(rq.p, nil, err, "current_password", "password")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/account/password", "done.password.changed")
}
