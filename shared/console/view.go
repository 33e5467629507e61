package console

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// view is what a page's template receives: the request (its language, base path, session and
// role), the page's own data, the state of its form and a message about what was just done.
type view struct {
	*request
	Title string
	Data  any
	Form  *render.Form
	// Done is the message of the change that led here (a redirect's ?done=), already translated.
	Done string
	// Refresh, when set, reloads the page after that many seconds (a delivery still waiting for
	// its attempt).
	Refresh int
}

// WithForm returns the view with another form's state: for a page of several forms, each
// rendered by a template that reads .Form.
func (v view) WithForm(f *render.Form) view {
	v.Form = f
	return v
}

// T translates a message key.
func (v view) T(key string, args ...any) string { return v.p.T(key, args...) }

// ID is the request's id, which the page shows so that a person can quote it.
func (v view) ID() string { return v.id }

// Lang is the page's language.
func (v view) Lang() string { return v.p.Lang }

// Money formats an amount in the page's language.
func (v view) Money(c money.Cents) string { return v.p.Money(c) }

// Time formats an instant in the team's time zone and the page's language.
func (v view) Time(t any) string {
	switch t := t.(type) {
	case time.Time:
		return v.p.Time(t)
	case *time.Time:
		if t == nil {
			return "—"
		}
		return v.p.Time(*t)
	case patio.Timestamp:
		return v.p.Time(t.Time())
	case *patio.Timestamp:
		if t == nil {
			return "—"
		}
		return v.p.Time(t.Time())
	}
	return "—"
}

// Seconds is Time to the second: a delivery's attempts, minutes apart or less, are told apart.
func (v view) Seconds(t any) string {
	switch t := t.(type) {
	case time.Time:
		return v.p.Seconds(t)
	case *time.Time:
		if t != nil {
			return v.p.Seconds(*t)
		}
	}
	return v.Time(t)
}

// Date formats a calendar date in the page's language.
func (v view) Date(d patio.Date) string { return v.p.Date(d) }

// Overdue reports whether a due time has passed.
func (v view) Overdue(t *patio.Timestamp) bool { return t != nil && t.Time().Before(v.now) }

// Late reports whether a financial record is overdue now (patio.FinancialRecord.Overdue).
func (v view) Late(f patio.FinancialRecord) bool { return f.Overdue(v.now) }

// Inviter is who invited a member as the team page shows it: their email, or the local stack
// named in the reader's language.
func (v view) Inviter(invitedBy string) string {
	if invitedBy == patio.InvitedByLocalStack {
		return v.p.T("team.invitedby.local")
	}
	return invitedBy
}

// Local formats an instant as a datetime-local field shows it, in the team's time zone.
func (v view) Local(t *patio.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.Time().In(v.p.Loc).Format("2006-01-02T15:04")
}

// Percent is n as a share of of, rounded ("" when of is 0).
func (v view) Percent(n, of int) string {
	if of <= 0 {
		return ""
	}
	return v.p.Number(n*100/of) + "%"
}

// Number formats a count in the page's language.
func (v view) Number(n int) string { return v.p.Number(n) }

// SignedIn reports whether a person is signed in.
func (v view) SignedIn() bool { return v.sess != nil }

// Email is the signed-in person's email.
func (v view) Email() string {
	if v.sess == nil {
		return ""
	}
	return v.sess.Email
}

// Team is the current team.
func (v view) Team() patio.Team { return v.team }

// Teams are the teams the signed-in person may switch to.
func (v view) Teams() []patio.SessionTeam {
	if v.sess == nil {
		return nil
	}
	return v.sess.Teams
}

// Role is the signed-in member's role, translated.
func (v view) Role() string { return v.T("role." + string(v.member.Role)) }

// phaseOptions are the options of a card's move select on the board: every phase, in the
// pipeline's order, by its label, current selected. Built here, escaped, as one piece: the board
// has one select per card, and its options are the same on every card of a column.
func phaseOptions(p locale.Printer, current string) template.HTML {
	var b strings.Builder
	for _, phase := range patio.DealPhases {
		b.WriteString(`<option value="`)
		b.WriteString(template.HTMLEscapeString(phase))
		b.WriteString(`"`)
		if phase == current {
			b.WriteString(" selected")
		}
		b.WriteString(">")
		b.WriteString(template.HTMLEscapeString(p.T("deal.phase." + phase)))
		b.WriteString("</option>")
	}
	return template.HTML(b.String()) //nolint:gosec // every part escaped above
}

// Languages are the languages the switch offers.
func (v view) Languages() []string { return locale.Languages }

// Path is the page's own path (for the language switch's way back).
func (v view) Path() string {
	p := strings.TrimPrefix(v.r.URL.Path, "")
	if v.r.URL.RawQuery != "" && v.r.Method == http.MethodGet {
		p += "?" + v.r.URL.RawQuery
	}
	return p
}

// In reports whether the page is in the section whose pages start with prefix ("/console/webhooks"
// holds the webhook's deliveries too): the navigation marks that section as the current one.
func (v view) In(prefix string) bool {
	p := v.r.URL.Path
	if prefix == webhooksPath && strings.HasPrefix(p, deliveriesPath) {
		return true
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/") || strings.HasPrefix(p, prefix+".")
}
