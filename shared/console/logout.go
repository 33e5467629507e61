package console

import "github.com/patio-dev/patio/shared/console/session"

// logout ends the session at once.
func (c *Console) logout(rq *request) {
	if err := c.d.Sessions.DeleteSession(rq.ctx(), rq.sess.Hash); err != nil {
		c.fail(rq, err)
		return
	}
	c.clearCookie(rq, session.Cookie)
	c.done(rq, loginPath, "done.signedout")
}
