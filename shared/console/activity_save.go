package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// activitySave applies the edit form to the revision it was loaded with: an activity changed
// meanwhile is not overwritten (409, with what changed).
func (c *Console) activitySave(rq *request) {
	c.activityRecords().save(c, rq, func(cur patio.Activity, status int, f *render.Form, choices linkChoices, changed []string) {
		c.render(rq, status, "activity", view{Title: cur.Title, Data: activityFormData{Activity: &cur, Types: patio.ActivityTypes,
			Choices: choices, Changed: changed, Links: c.labelLinks(rq.ctx(), rq.team.ID, cur.VehicleID, cur.ClientID, cur.DealID)},
			Form: f})
	})
}
