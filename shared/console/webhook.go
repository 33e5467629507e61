package console

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

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
	w, err := c.d.Webhooks.GetOfTeam(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return w, false
	}
	return w, true
}

// webhookFormData is what the webhook form shows besides its values.
type webhookFormData struct {
	Groups  []eventGroup
	Webhook *webhook.Webhook
	Changed []string
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
	c.done(rq, webhooksPath+"/"+w.ID, message)
}

// webhookName is the URL of the path's webhook, which its confirmations name.
func (c *Console) webhookName(rq *request) (string, bool) {
	w, ok := c.ownWebhook(rq)
	return w.URL, ok
}
