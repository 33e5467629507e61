package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// teamData is the team page: its members and settings.
type teamData struct {
	Members []patio.Member
	Roles   []patio.Role
	// Invitable are the roles the signed-in member may invite.
	Invitable []patio.Role
	TimeZones []string
	// Languages are the languages the team's emails may be written in.
	Languages []string
}

// timeZones are the time zones the settings form offers first (any IANA name is accepted).
var timeZones = []string{"America/Sao_Paulo", "America/Manaus", "America/Cuiaba", "America/Belem", "America/Fortaleza",
	"America/Recife", "America/Bahia", "America/Porto_Velho", "America/Boa_Vista", "America/Rio_Branco",
	"America/Noronha", "UTC"}

// teamPage shows the team's members (and the invitation form, for those who may invite) and its
// settings.
func (c *Console) teamPage(rq *request) {
	c.teamView(rq, http.StatusOK, newForm(nil), nil)
}

// teamView renders the team page with the invitation form f and the settings form s (nil: the
// team's current settings).
func (c *Console) teamView(rq *request, status int, f, s *formState) {
	ms, err := c.d.Members.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return
	}
	var invitable []patio.Role
	for _, r := range patio.Roles {
		if rq.member.Role.MayInvite(r) {
			invitable = append(invitable, r)
		}
	}
	if s == nil {
		s = newForm(url.Values{"name": {rq.team.Name}, "email": {rq.team.Email}, "time_zone": {rq.team.TimeZone},
			"language": {rq.team.Lang()}})
	}
	c.render(rq, status, "team", view{Title: rq.p.T("team.title"), Form: f,
		Data: map[string]any{"Team": teamData{Members: ms, Roles: patio.Roles, Invitable: invitable, TimeZones: timeZones,
			Languages: patio.TeamLanguages},
			"Settings": s}})
}

// consoleURL is where the console's sign-in page is, as the request reached it: the link of an
// invitation.
func consoleURL(rq *request) string {
	return selfOrigin(rq.r) + rq.URL("/console/login")
}

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
			c.teamView(rq, http.StatusUnprocessableEntity, refused(rq.p, values, err, form.InviteFields...), nil)
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.done(rq, "/console/team", "done.member.invited")
		return "/console/team", true
	})
}

// member returns the member of the path's {user} (an email) in the current team, or 404.
func (c *Console) pathMember(rq *request) (patio.Member, bool) {
	ms, err := c.d.Members.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return patio.Member{}, false
	}
	user := rq.r.PathValue("user")
	for _, m := range ms {
		if m.Email == user {
			return m, true
		}
	}
	c.fail(rq, patio.NotFoundf("member not found"))
	return patio.Member{}, false
}

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
	c.done(rq, "/console/team", "done.member.role")
}

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
	c.done(rq, "/console/team", "done.member.reinvited")
}

// memberRemove removes a member from the team; a team keeps at least one owner.
func (c *Console) memberRemove(rq *request) {
	m, ok := c.pathMember(rq)
	if !ok {
		return
	}
	if _, err := c.d.Members.Remove(rq.ctx(), rq.team.ID, m.Email); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/team", "done.member.removed")
}

// teamSettings changes the team's name, contact email, time zone and the language of its emails.
func (c *Console) teamSettings(rq *request) {
	values := rq.r.PostForm
	_, err := c.d.Teams.UpdateSettings(rq.ctx(), rq.team.ID, form.Settings(values))
	if patio.IsKind(err, patio.KindInvalid) {
		c.teamView(rq, http.StatusUnprocessableEntity, newForm(nil), refused(rq.p, values, err, form.SettingsFields...))
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/team", "done.team.saved")
}
