package console

import (
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
)

// switchLanguage keeps the language chosen: in the session when signed in, in a cookie otherwise
// (and for the sign-in page), then goes back to the page it came from.
func (c *Console) switchLanguage(rq *request) {
	lang := locale.Supported(rq.r.PostFormValue("lang"))
	if lang == "" {
		c.fail(rq, patio.Invalidf("lang must be pt-BR or en"))
		return
	}
	c.setCookie(rq, session.LangCookie, lang, 365*24*time.Hour)
	if rq.sess != nil {
		rq.sess.Lang = lang
		if err := c.d.Sessions.SaveSession(rq.ctx(), *rq.sess); err != nil {
			c.fail(rq, err)
			return
		}
	}
	back := rq.r.PostFormValue("back")
	if back != loginPath && !strings.HasPrefix(back, loginPath+"?") {
		back = safeNext(back)
	}
	c.redirect(rq, back)
}
