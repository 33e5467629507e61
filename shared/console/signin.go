package console

import (
	"strings"

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
