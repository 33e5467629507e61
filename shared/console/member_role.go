package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// memberRole changes a member's role; a team keeps at least one owner.
func (c *Console) memberRole(rq *request) {
	m, ok := c.pathMember(rq)
	if !ok {
		return
	}
	role, err := patio.ParseRole(rq.r.PostForm.Get("role"))
	if err == nil {
		_, err = c.d.Members.ChangeRole(rq.ctx(), rq.team.ID, m.Email, role)
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, teamPath, "done.member.role")
}
