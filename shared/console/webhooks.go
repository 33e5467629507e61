package console

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// eventGroup is the event types of one resource, as the webhook form offers them.
type eventGroup struct {
	Resource string
	Types    []string
}

// eventGroups groups every event type by its resource, in the catalogue's order.
func eventGroups() []eventGroup {
	var out []eventGroup
	for _, t := range webhook.EventTypes {
		res, _, _ := strings.Cut(t, ".")
		if len(out) == 0 || out[len(out)-1].Resource != res {
			out = append(out, eventGroup{Resource: res})
		}
		out[len(out)-1].Types = append(out[len(out)-1].Types, t)
	}
	return out
}

// ownWebhook returns the webhook of the path's id when it is the current team's; 404 otherwise.
func (c *Console) ownWebhook(rq *request) (webhook.Webhook, bool) {
	w, err := c.d.Webhooks.Get(rq.ctx(), rq.r.PathValue("id"))
	if err == nil && w.TeamID != rq.team.ID {
		err = patio.NotFoundf("webhook not found")
	}
	if err != nil {
		c.fail(rq, err)
		return w, false
	}
	return w, true
}

// webhookList shows the team's webhooks.
func (c *Console) webhookList(rq *request) {
	hs, err := c.d.Webhooks.List(rq.ctx(), rq.team.ID, false)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "webhooks", view{Title: rq.p.T("webhooks.title"), Data: hs})
}

// webhookFormData is what the webhook form shows besides its values.
type webhookFormData struct {
	Groups  []eventGroup
	Webhook *webhook.Webhook
	Changed []string
}

// webhookNew shows the form of a new webhook.
func (c *Console) webhookNew(rq *request) {
	c.render(rq, http.StatusOK, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
		Data: webhookFormData{Groups: eventGroups()}, Form: newForm(nil)})
}

// webhookCreate creates a webhook and shows its secret, once. The form's one-time token makes a
// second post of the same form (a reload) create nothing and show no secret.
func (c *Console) webhookCreate(rq *request) {
	values := rq.r.PostForm
	in, err := form.Webhook(values)
	if err != nil {
		c.render(rq, http.StatusUnprocessableEntity, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
			Data: webhookFormData{Groups: eventGroups()}, Form: refused(rq.p, values, err, form.WebhookFields...)})
		return
	}
	c.once(rq, values, func() (string, bool) {
		w, secret, err := c.d.Webhooks.Create(rq.ctx(), rq.team.ID, in)
		if patio.IsKind(err, patio.KindInvalid) {
			c.render(rq, http.StatusUnprocessableEntity, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
				Data: webhookFormData{Groups: eventGroups()}, Form: refused(rq.p, values, err, form.WebhookFields...)})
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.render(rq, http.StatusOK, "webhook_secret", view{Title: rq.p.T("webhooks.created.title"),
			Data: map[string]any{"Webhook": w, "Secret": secret, "Created": true}})
		return "/console/webhooks/" + w.ID, true
	})
}

// webhookConfig is a webhook's configuration as an edit form was loaded with it: what a stale edit
// compares (the delivery engine's own bookkeeping is not part of it).
type webhookConfig struct {
	URL       string   `json:"u"`
	Desc      string   `json:"d,omitempty"`
	Events    []string `json:"e"`
	MaxRate   int      `json:"r"`
	Status    string   `json:"s"`
	UpdatedAt string   `json:"t"`
}

// configOf is a webhook's configuration as its edit form is loaded with it.
func configOf(w webhook.Webhook) webhookConfig {
	return webhookConfig{URL: w.URL, Desc: w.Description, Events: w.Events, MaxRate: int(w.MaxRate), Status: w.Status, UpdatedAt: w.UpdatedAt.String()}
}

// revision encodes a configuration as the edit form's hidden revision field.
func (cfg webhookConfig) revision() string {
	b, _ := json.Marshal(cfg)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseRevision decodes a revision field; ok is false for a malformed one.
func parseRevision(s string) (webhookConfig, bool) {
	var cfg webhookConfig
	b, err := base64.RawURLEncoding.DecodeString(s)
	return cfg, err == nil && json.Unmarshal(b, &cfg) == nil && cfg.UpdatedAt != ""
}

// changedSince lists the fields of the configuration that changed since was was loaded.
func (cfg webhookConfig) changedSince(was webhookConfig) []string {
	var out []string
	if cfg.URL != was.URL {
		out = append(out, "url")
	}
	if cfg.Desc != was.Desc {
		out = append(out, "description")
	}
	if !slices.Equal(cfg.Events, was.Events) {
		out = append(out, "events")
	}
	if cfg.MaxRate != was.MaxRate {
		out = append(out, "max_rate")
	}
	if cfg.Status != was.Status {
		out = append(out, "status")
	}
	if len(out) == 0 && cfg.UpdatedAt != was.UpdatedAt {
		out = append(out, "secrets")
	}
	return out
}

// webhookValues are a webhook's values as its edit form shows them.
func webhookValues(w webhook.Webhook) url.Values {
	v := url.Values{"url": {w.URL}, "description": {w.Description}, "events": w.Events, "revision": {configOf(w).revision()}}
	if w.MaxRate > 0 {
		v.Set("max_rate", strconv.Itoa(int(w.MaxRate)))
	}
	return v
}

// webhookShow shows a webhook: its configuration (an edit form for those who may), its status and
// why it was disabled, and its actions.
func (c *Console) webhookShow(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	c.render(rq, http.StatusOK, "webhook", view{Title: w.URL, Data: webhookFormData{Groups: eventGroups(), Webhook: &w},
		Form: newForm(webhookValues(w))})
}

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
	show := func(status int, f *formState, changed []string) {
		c.render(rq, status, "webhook", view{Title: w.URL, Data: webhookFormData{Groups: eventGroups(), Webhook: &w,
			Changed: changed}, Form: f})
	}
	if changed := configOf(w).changedSince(was); len(changed) > 0 {
		values.Set("revision", configOf(w).revision())
		f := newForm(values)
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
		show(http.StatusUnprocessableEntity, refused(rq.p, values, err, form.WebhookFields...), nil)
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/webhooks/"+w.ID, "done.webhook.saved")
}

// webhookAction runs one action on a webhook of the team and goes back to it.
func (c *Console) webhookAction(rq *request, act func(id string) (webhook.Webhook, error), message string) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	if _, err := act(w.ID); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/webhooks/"+w.ID, message)
}

// webhookEnable makes a webhook active again (its failure count starts afresh) and goes back to it.
func (c *Console) webhookEnable(rq *request) {
	c.webhookAction(rq, func(id string) (webhook.Webhook, error) { return c.d.Webhooks.Enable(rq.ctx(), id) },
		"done.webhook.enabled")
}

// webhookDisable disables a webhook and goes back to it.
func (c *Console) webhookDisable(rq *request) {
	c.webhookAction(rq, func(id string) (webhook.Webhook, error) { return c.d.Webhooks.Disable(rq.ctx(), id) },
		"done.webhook.disabled")
}

// webhookDelete deletes a webhook and goes back to the list.
func (c *Console) webhookDelete(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	if _, err := c.d.Webhooks.Delete(rq.ctx(), w.ID); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/webhooks", "done.webhook.deleted")
}

// webhookRotate gives a webhook a new secret and shows it, once, with the end of the old one's
// grace period.
func (c *Console) webhookRotate(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	w, secret, err := c.d.Webhooks.RotateSecret(rq.ctx(), w.ID, webhook.DefaultGrace)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "webhook_secret", view{Title: rq.p.T("webhooks.rotated.title"),
		Data: map[string]any{"Webhook": w, "Secret": secret, "Rotated": true, "Grace": rq.p.Time(rq.now.Add(webhook.DefaultGrace))}})
}

// webhookTest sends a test event of the chosen type and shows its delivery.
func (c *Console) webhookTest(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	typ := rq.r.PostForm.Get("type")
	if typ == "" {
		typ = webhook.VehicleCreated
	}
	d, err := c.d.Webhooks.Test(rq.ctx(), w.ID, typ)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/deliveries/"+d.ID, "done.webhook.tested")
}
