package console

import (
	"net/http"
	"strconv"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// replayBulk re-sends every matching delivery of a webhook: first it says how many and asks to
// confirm; with confirm it replays them and says how many it did.
func (c *Console) replayBulk(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	values := rq.r.PostForm
	q, err := form.Deliveries(values, rq.p.Loc)
	if err == nil && len(q.Statuses) == 0 {
		err = patio.Invalidf("status must name failed, cancelled or skipped")
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	ctx := rq.ctx()
	if values.Get("confirm") == "" {
		n, err := c.d.Deliveries.CountReplayable(ctx, w.ID, q.Statuses, q.Since, q.Until)
		if err != nil {
			c.fail(rq, err)
			return
		}
		c.render(rq, http.StatusOK, "replay_confirm", view{Title: rq.p.T("replay.confirm.title"),
			Data: map[string]any{"Webhook": w, "Count": n}, Form: render.NewForm(values)})
		return
	}
	n, err := c.d.Deliveries.ReplayAll(ctx, w.ID, q.Statuses, q.Since, q.Until)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.redirect(rq, webhooksPath+"/"+w.ID+"/deliveries?done=done.replayed.bulk&n="+strconv.Itoa(n))
}
