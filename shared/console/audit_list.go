package console

import (
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

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
	rows, err := c.auditRows(rq, entries)
	if err != nil {
		c.fail(rq, err)
		return
	}
	data["Entries"] = rows
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

// auditRow is an audit entry as the log shows it: the record it changed named as people name it
// (a vehicle's plate and title, a client's name, a deal's title) and linked to its page, with its
// kind's label; Name is "" for a target of another kind, or a record that no longer reads, which
// show as they are stored.
type auditRow struct {
	patio.AuditEntry
	// Kind is the catalog key of the record's kind (field.deal); Page its page, "" for none.
	Kind, Name, Page string
}

// auditRows names the records a page of entries changed: one batch read of names per kind
// (vehicles, clients, deals), at once.
func (c *Console) auditRows(rq *request, entries []patio.AuditEntry) ([]auditRow, error) {
	ids := map[string][]string{}
	for _, e := range entries {
		if kind, id, ok := strings.Cut(e.Target, ":"); ok {
			ids[kind] = append(ids[kind], id)
		}
	}
	names := map[string]string{} // by target
	var mu sync.Mutex
	keep := func(kind, id, name string) {
		mu.Lock()
		defer mu.Unlock()
		names[kind+":"+id] = name
	}
	ctx, team := rq.ctx(), rq.team.ID
	g, ctx := errgroup.WithContext(ctx)
	if len(ids[patio.ResourceVehicle]) > 0 {
		g.Go(func() error {
			found, err := c.d.Records.Vehicles.Names(ctx, team, ids[patio.ResourceVehicle])
			for _, v := range found {
				keep(patio.ResourceVehicle, v.ID, vehicleName(v))
			}
			return err
		})
	}
	if len(ids[patio.ResourceClient]) > 0 {
		g.Go(func() error {
			found, err := c.d.Records.Clients.Names(ctx, team, ids[patio.ResourceClient])
			for _, cl := range found {
				keep(patio.ResourceClient, cl.ID, cl.Name)
			}
			return err
		})
	}
	if len(ids[patio.ResourceDeal]) > 0 {
		g.Go(func() error {
			found, err := c.d.Records.Deals.Names(ctx, team, ids[patio.ResourceDeal])
			for _, d := range found {
				keep(patio.ResourceDeal, d.ID, d.Title)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rows := make([]auditRow, len(entries))
	for i, e := range entries {
		rows[i] = auditRow{AuditEntry: e}
		kind, id, _ := strings.Cut(e.Target, ":")
		if name, ok := names[e.Target]; ok {
			rows[i].Kind, rows[i].Name, rows[i].Page = "field."+kind, name, recordPaths[kind]+"/"+id
		}
	}
	return rows, nil
}
