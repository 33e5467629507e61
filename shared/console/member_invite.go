package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// memberInvite invites an email with a role: owners may invite any role, admins members and
// viewers.
func (c *Console) memberInvite(rq *request) {
	values := rq.r.PostForm
	email, role, err := form.Invite(values)
	if err == nil && !rq.member.Role.MayInvite(role) {
		c.fail(rq, patio.Errorf(patio.KindForbidden, "your role does not allow inviting a %s", role))
		return
	}
	c.once(rq, values, func() (string, bool) {
		if err == nil {
			_, err = c.d.Members.Invite(rq.ctx(), rq.team.ID, email, role, consoleURL(rq))
		}
		if k := patio.KindOf(err); k == patio.KindInvalid || k == patio.KindConflict {
			c.teamView(rq, http.StatusUnprocessableEntity, render.Refused(rq.p, values, err, form.InviteFields...), nil)
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.done(rq, teamPath, "done.member.invited")
		return teamPath, true
	})
}
