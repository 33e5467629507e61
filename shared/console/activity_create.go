package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// activityCreate creates an activity, linking the records found by what was typed.
func (c *Console) activityCreate(rq *request) {
	c.activityRecords().create(c, rq, func(err error, choices linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "activity_new", view{Title: rq.p.T("activities.new.title"),
			Data: activityFormData{Types: patio.ActivityTypes, Choices: choices}, Form: render.Refused(rq.p, rq.r.PostForm, err, form.ActivityFields...)})
	})
}
