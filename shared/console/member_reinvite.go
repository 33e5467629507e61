package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// memberReinvite sends a member a new invitation with a new temporary password (the forgotten
// password's way back in).
func (c *Console) memberReinvite(rq *request) {
	m, ok := c.pathMember(rq)
	if !ok {
		return
	}
	if !rq.member.Role.MayInvite(m.Role) {
		c.fail(rq, patio.Errorf(patio.KindForbidden, "your role does not allow inviting a %s", m.Role))
		return
	}
	if _, err := c.d.Members.Reinvite(rq.ctx(), rq.team.ID, m.Email, consoleURL(rq)); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, teamPath, "done.member.reinvited")
}
