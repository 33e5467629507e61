package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/console/session"
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

// teamView renders the team page with the invitation form f and the settings form s (nil: the
// team's current settings).
func (c *Console) teamView(rq *request, status int, f, s *render.Form) {
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
		s = render.NewForm(url.Values{"name": {rq.team.Name}, "email": {rq.team.Email}, "time_zone": {rq.team.TimeZone},
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
	return session.Origin(rq.r) + rq.URL(loginPath)
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

// memberName is the email of the path's member, which their removal's confirmation names. The
// question asked again for a member no longer in the team (Back after the removal) goes to the
// team page.
func (c *Console) memberName(rq *request) (string, bool) {
	if rq.r.Method != http.MethodGet {
		m, ok := c.pathMember(rq)
		return m.Email, ok
	}
	ms, err := c.d.Members.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	for _, m := range ms {
		if m.Email == rq.r.PathValue("user") {
			return m.Email, true
		}
	}
	c.redirect(rq, teamPath)
	return "", false
}
