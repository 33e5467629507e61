package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// activityMove moves an activity to status (start, complete, cancel, reopen) as the transition
// table allows (422 otherwise).
func (c *Console) activityMove(status patio.ActivityStatus) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		if _, err := c.d.Activities.Update(rq.ctx(), rq.team.ID, id, patio.ActivityInput{Status: patio.Some(string(status))}); err != nil {
			c.fail(rq, err)
			return
		}
		c.done(rq, activitiesPath+"/"+id, "done.activity."+string(status))
	}
}
