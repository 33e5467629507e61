package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// auditActions are the actions the audit log's filter offers.
var auditActions = []string{"team.create", "team.settings", "team.plan", "member.invite", "member.reinvite", "member.role",
	"member.remove", "key.create", "key.revoke", "webhook.create", "webhook.update", "webhook.enable", "webhook.disable",
	"webhook.delete", "webhook.rotate", "webhook.test", "delivery.replay", "delivery.replay_bulk",
	"activity.create", "activity.update", "activity.start", "activity.complete", "activity.cancel", "activity.reopen",
	"financial.create", "financial.update", "financial.pay", "financial.cancel", "financial.reopen",
	"vehicle.create", "vehicle.update", "vehicle.archive", "vehicle.sell", "client.create", "client.update", "client.deactivate",
	"client.restore",
	"deal.create", "deal.update", "deal.win", "deal.lose", "deal.archive", "deal.reopen"}

// auditPage shows the team's audit log, newest first, filtered by person, action and time, paged
// with cursors.
func (c *Console) auditPage(rq *request) {
	q := rq.filters()
	data := map[string]any{"Actions": auditActions}
	aq, err := form.Audit(q, rq.p.Loc)
	var entries []patio.AuditEntry
	next := ""
	if err == nil {
		entries, next, err = c.d.Audit.AuditPage(rq.ctx(), rq.team.ID, aq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "audit", view{Title: rq.p.T("audit.title"), Data: data,
			Form: render.Refused(rq.p, q, err, "actor", "action", "since", "until")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data["Entries"] = entries
	if next != "" {
		nq := url.Values{}
		for _, k := range []string{"actor", "action", "since", "until"} {
			nq[k] = q[k]
		}
		nq.Set("cursor", next)
		data["Next"] = nq.Encode()
	}
	c.render(rq, http.StatusOK, "audit", view{Title: rq.p.T("audit.title"), Data: data, Form: render.NewForm(q)})
}
