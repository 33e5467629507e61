package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/patio"
)

// activityNew shows the form of a new activity.
func (c *Console) activityNew(rq *request) {
	c.render(rq, http.StatusOK, "activity_new", view{Title: rq.p.T("activities.new.title"),
		Data: activityFormData{Types: patio.ActivityTypes}, Form: rq.newForm(url.Values{"type": {"task"}})})
}
