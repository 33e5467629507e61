// Package form reads the console's forms and query strings into the typed values the use cases
// take, reporting every problem at once with the field it belongs to (patio.Problems, InBody for a
// form's fields, InQuery for a list's filters). The rules themselves stay in the domain: a form
// calls the domain's checks, so that each problem comes back next to its field.
package form

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// WebhookFields are the fields of the webhook form.
var WebhookFields = []string{"url", "description", "events", "max_rate"}

// Webhook reads the webhook form: url, description, events (repeated, or "*" for every type) and
// max_rate (empty or "none": no limit).
func Webhook(v url.Values) (webhook.Settings, error) {
	var p patio.Problems
	in := webhook.Settings{URL: strings.TrimSpace(v.Get("url")), Description: strings.TrimSpace(v.Get("description"))}
	if _, err := webhook.ValidateURL(in.URL); err != nil {
		p.AddError(patio.InBody, "url", err)
	}
	events := v["events"]
	for _, e := range events {
		if e == webhook.AllEvents {
			events = []string{webhook.AllEvents}
			break
		}
	}
	evs, err := webhook.ParseEvents(events)
	if err != nil {
		p.AddError(patio.InBody, "events", err)
	}
	in.Events = evs
	if in.MaxRate, err = webhook.ParseRate(v.Get("max_rate")); err != nil {
		p.AddError(patio.InBody, "max_rate", err)
	}
	return in, p.Err()
}

// KeyFields are the fields of the API key form.
var KeyFields = []string{"name", "scopes"}

// Key reads the API key form: name, and scopes (repeated).
func Key(v url.Values) (name string, scopes []string) {
	return strings.TrimSpace(v.Get("name")), v["scopes"]
}

// InviteFields are the fields of the invitation form.
var InviteFields = []string{"email", "role"}

// Invite reads the invitation form: email and role.
func Invite(v url.Values) (string, patio.Role, error) {
	var p patio.Problems
	email, err := patio.NormalizeEmail(v.Get("email"))
	if err != nil {
		p.AddError(patio.InBody, "email", err)
	}
	role, err := patio.ParseRole(v.Get("role"))
	if err != nil {
		p.AddError(patio.InBody, "role", err)
	}
	return email, role, p.Err()
}

// SettingsFields are the fields of the team settings form.
var SettingsFields = []string{"name", "email", "time_zone", "language"}

// Settings reads the team settings form: name, email, time_zone and language (absent: the
// default).
func Settings(v url.Values) patio.TeamSettings {
	lang := strings.TrimSpace(v.Get("language"))
	if lang == "" {
		lang = patio.DefaultLanguage
	}
	return patio.TeamSettings{Name: v.Get("name"), Email: v.Get("email"), TimeZone: strings.TrimSpace(v.Get("time_zone")),
		Language: lang}
}

// Instant reads a filter's instant: a date (YYYY-MM-DD: its first moment, or with end its last) or
// a date and time (YYYY-MM-DDTHH:MM, as an <input type="datetime-local"> sends it), in loc. Empty
// gives the zero time.
func Instant(s string, loc *time.Location, end bool) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, true
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			if end {
				t = t.Add(time.Minute - time.Millisecond)
			}
			return t, true
		}
	}
	t, err := time.ParseInLocation("2006-01-02", s, loc)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		t = t.AddDate(0, 0, 1).Add(-time.Millisecond)
	}
	return t, true
}

// window reads since and until into p's problems.
func window(v url.Values, loc *time.Location, p *patio.Problems) (since, until time.Time) {
	var ok bool
	if since, ok = Instant(v.Get("since"), loc, false); !ok {
		p.Add(patio.InQuery, "since", "since must be a date (YYYY-MM-DD) or a date and time")
	}
	if until, ok = Instant(v.Get("until"), loc, true); !ok {
		p.Add(patio.InQuery, "until", "until must be a date (YYYY-MM-DD) or a date and time")
	}
	return since, until
}

// Deliveries reads the filters of a webhook's deliveries: status (repeated or comma-separated),
// since, until (in loc) and cursor.
func Deliveries(v url.Values, loc *time.Location) (webhook.DeliveryQuery, error) {
	var p patio.Problems
	q := webhook.DeliveryQuery{Cursor: v.Get("cursor")}
	sts, err := webhook.ParseDeliveryStatuses(strings.Join(v["status"], ","))
	if err != nil {
		p.AddError(patio.InQuery, "status", err)
	}
	q.Statuses = sts
	for _, typ := range v["type"] {
		if typ = strings.TrimSpace(typ); typ != "" {
			if !slices.Contains(webhook.EventTypes, typ) {
				p.Add(patio.InQuery, "type", "unknown event type %q", typ)
				continue
			}
			q.Types = append(q.Types, typ)
		}
	}
	q.Since, q.Until = window(v, loc, &p)
	if err := p.Err(); err != nil {
		return q, err
	}
	if _, err := q.Check(); err != nil {
		return q, err
	}
	return q, nil
}

// Audit reads the filters of the audit log: actor, action, since, until (in loc) and cursor.
func Audit(v url.Values, loc *time.Location) (patio.AuditQuery, error) {
	var p patio.Problems
	q := patio.AuditQuery{Actor: strings.ToLower(strings.TrimSpace(v.Get("actor"))), Action: strings.TrimSpace(v.Get("action")),
		Cursor: v.Get("cursor")}
	q.Since, q.Until = window(v, loc, &p)
	if err := p.Err(); err != nil {
		return q, err
	}
	return q.Check()
}
