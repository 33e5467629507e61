package console

import (
	"strings"

	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
)

// safeNext returns a page to go to after signing in: a console path, nothing else (no other site,
// no scheme-relative URL); "/console/" otherwise.
func safeNext(next string) string {
	if !strings.HasPrefix(next, homePath) || strings.Contains(next, "//") || strings.Contains(next, `\`) ||
		strings.HasPrefix(next, loginPath) {
		return homePath
	}
	return next
}

// startSession begins a session for a person who proved who they are, in the first of their
// teams (see session.Start), and goes to next. A person with no team left cannot sign in.
func (c *Console) startSession(rq *request, email, next string) {
	id, err := session.Start(rq.ctx(), c.d.Sessions, email, session.SignedOutLanguage(rq.r), rq.now)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.setCookie(rq, session.Cookie, id, patio.SessionMax)
	c.redirect(rq, next)
}
