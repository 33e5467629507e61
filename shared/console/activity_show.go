package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// activityShow shows an activity, its transitions and (for those who may) its edit form.
func (c *Console) activityShow(rq *request) {
	a, err := c.d.Activities.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	l := c.labelLinks(rq.ctx(), rq.team.ID, a.VehicleID, a.ClientID, a.DealID)
	c.render(rq, http.StatusOK, "activity", view{Title: a.Title, Data: activityFormData{Activity: &a, Types: patio.ActivityTypes,
		Links: l}, Form: render.NewForm(linkedFormValues(activityEditable(rq, a), a.Revision, l))})
}
