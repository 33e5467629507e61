package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// teamSettings changes the team's name, contact email, time zone and the language of its emails.
func (c *Console) teamSettings(rq *request) {
	values := rq.r.PostForm
	_, err := c.d.Teams.UpdateSettings(rq.ctx(), rq.team.ID, form.Settings(values))
	if patio.IsKind(err, patio.KindInvalid) {
		c.teamView(rq, http.StatusUnprocessableEntity, render.NewForm(nil), render.Refused(rq.p, values, err, form.SettingsFields...))
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, teamPath, "done.team.saved")
}
