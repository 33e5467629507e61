package console

import (
	"slices"

	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
)

// switchTeam makes another of the person's teams the current one.
func (c *Console) switchTeam(rq *request) {
	ctx := rq.ctx()
	team := rq.r.PostFormValue("team")
	ms, err := c.d.Sessions.Memberships(ctx, rq.sess.Email)
	if err != nil {
		c.fail(rq, err)
		return
	}
	i := slices.IndexFunc(ms, func(m patio.Member) bool { return m.TeamID == team })
	if i < 0 {
		c.fail(rq, patio.NotFoundf("team not found"))
		return
	}
	rq.sess.TeamID, rq.sess.Teams = team, session.Teams(ms)
	if err := c.d.Sessions.SaveSession(ctx, *rq.sess); err != nil {
		c.fail(rq, err)
		return
	}
	c.setCookie(rq, session.Cookie, session.Value(rq.sessID, team, rq.sess.Email), patio.SessionMax)
	c.done(rq, homePath, "done.team.switched")
}
