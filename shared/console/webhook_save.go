package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// webhookSave changes a webhook's URL, description, events and max rate. An edit of a webhook whose configuration changed
// since the form was loaded is refused (409) with what changed, and nothing is written.
func (c *Console) webhookSave(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	values := rq.r.PostForm
	was, ok := parseRevision(values.Get("revision"))
	if !ok {
		c.fail(rq, patio.Invalidf("the form is incomplete; reload the page"))
		return
	}
	show := func(status int, f *render.Form, changed []string) {
		c.render(rq, status, "webhook", view{Title: w.URL, Data: webhookFormData{Groups: eventGroups(), Webhook: &w,
			Changed: changed}, Form: f})
	}
	if changed := configOf(w).changedSince(was); len(changed) > 0 {
		values.Set("revision", configOf(w).revision())
		f := render.NewForm(values)
		f.Problems = map[string][]string{"": {rq.p.T("webhooks.stale")}}
		show(http.StatusConflict, f, changed)
		return
	}
	in, err := form.Webhook(values)
	if err == nil {
		w, err = c.d.Webhooks.Update(rq.ctx(), w.ID, webhook.SettingsChange{URL: &in.URL, Events: in.Events, MaxRate: &in.MaxRate,
			Description: &in.Description})
	}
	if patio.IsKind(err, patio.KindInvalid) || patio.IsKind(err, patio.KindConflict) {
		show(http.StatusUnprocessableEntity, render.Refused(rq.p, values, err, form.WebhookFields...), nil)
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, webhooksPath+"/"+w.ID, "done.webhook.saved")
}
