package console

import (
	"context"
	"net/http"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// stockListData is a page of the stock: the vehicles, how many match, the counts per status (from
// the maintained counts) and the choices of the filters.
type stockListData struct {
	Items    []patio.Vehicle
	Total    int
	Next     string
	Counts   []statusCount
	Statuses []string
	Phases   []string
	Fuels    []string
	Sorts    []string
}

// statusCount is how many of the team's records have a status, and the list of them.
type statusCount struct {
	Status string
	N      int
}

// vehicleList shows the team's vehicles with the public API's filters, sorts and q, paged with
// cursors, the counts per status at its head.
func (c *Console) vehicleList(rq *request) {
	q := rq.filters()
	data := stockListData{Statuses: patio.VehicleStatuses, Phases: patio.VehiclePhases, Fuels: patio.VehicleFuels,
		Sorts: patio.VehicleSorts}
	vq, err := form.VehicleQuery(q, moduleLimit)
	if err == nil {
		if err = parseCursor(q.Get("cursor"), &vq.ListQuery); err != nil {
			err = patio.Invalidf("cursor is not valid for this search")
		}
	}
	// The counts at the head and the page are read at once.
	var page patio.Page[patio.Vehicle]
	g, ctx := errgroup.WithContext(rq.ctx())
	g.Go(func() (err error) {
		data.Counts, err = c.stockCounts(ctx, rq.team.ID)
		return err
	})
	if err == nil {
		g.Go(func() (err error) {
			page, err = c.d.Records.Vehicles.List(ctx, rq.team.ID, vq)
			return err
		})
	}
	if gerr := g.Wait(); err == nil {
		err = gerr
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "vehicles", view{Title: rq.p.T("stock.title"), Data: data,
			Form: refused(rq.p, q, err, form.VehicleFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = page.Items, page.Total
	data.Next = nextPage(q, form.VehicleFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "vehicles", view{Title: rq.p.T("stock.title"), Data: data, Form: newForm(q)})
}

// stockCounts is how many of the team's vehicles have each status: the counts the store keeps,
// in one read.
func (c *Console) stockCounts(ctx context.Context, teamID string) ([]statusCount, error) {
	n, err := c.d.Records.Vehicles.Counts(ctx, teamID)
	counts := make([]statusCount, len(patio.VehicleStatuses))
	for i, s := range patio.VehicleStatuses {
		counts[i] = statusCount{Status: s, N: n[s]}
	}
	return counts, err
}

// vehiclePageData is a vehicle's page: its fields (and its edit form's choices), the deals,
// activities and financial records that name it, and its history.
type vehiclePageData struct {
	vehicleFormData
	Plate string
	related
}

// related is what a vehicle's or a client's page shows beside the record: the deals, activities
// and financial records that name it (a page of each, every status), and its history.
type related struct {
	Deals      []patio.Deal
	Activities []patio.Activity
	Financial  []patio.FinancialRecord
	History    []patio.AuditEntry
}

// relatedTo reads, at once, what names the record id of resource (a vehicle or a client) and its
// history.
func (c *Console) relatedTo(ctx context.Context, teamID, resource, id string) (related, error) {
	var r related
	all := func(statuses []string) patio.ListQuery {
		return patio.ListQuery{Limit: patio.Some(moduleLimit), Status: statuses}
	}
	var vehicleID, clientID *string
	if resource == patio.ResourceVehicle {
		vehicleID = &id
	} else {
		clientID = &id
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		page, err := c.d.Records.Deals.List(ctx, teamID, patio.DealQuery{ListQuery: all(patio.DealStatuses), VehicleID: vehicleID,
			ClientID: clientID})
		r.Deals = page.Items
		return err
	})
	g.Go(func() error {
		page, err := c.d.Activities.List(ctx, teamID, patio.ActivityQuery{ListQuery: all(patio.ActivityStatuses),
			VehicleID: vehicleID, ClientID: clientID})
		r.Activities = page.Items
		return err
	})
	g.Go(func() error {
		page, err := c.d.Financial.List(ctx, teamID, patio.FinancialQuery{ListQuery: all(patio.FinancialStatuses),
			VehicleID: vehicleID, ClientID: clientID})
		r.Financial = page.Items
		return err
	})
	g.Go(func() (err error) {
		r.History, err = c.history(ctx, teamID, resource, id)
		return err
	})
	return r, g.Wait()
}

// historyLimit is how many of a record's latest audit entries its page shows.
const historyLimit = 10

// history reads a record's latest audit entries (its history: who changed what, and when), newest
// first, from the audit log's index by record.
func (c *Console) history(ctx context.Context, teamID, resource, id string) ([]patio.AuditEntry, error) {
	entries, _, err := c.d.Audit.AuditPage(ctx, teamID, patio.AuditQuery{Target: resource + ":" + id, Limit: historyLimit})
	return entries, err
}

// vehicleShow shows one vehicle of the team, and for those who may its edit form, loaded with its
// current values and revision.
func (c *Console) vehicleShow(rq *request) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderVehicle(rq, http.StatusOK, v, nil, nil)
}

// renderVehicle renders a vehicle's page with its edit form f (nil: its current values) and, after
// a stale edit, what changed.
func (c *Console) renderVehicle(rq *request, status int, v patio.Vehicle, f *formState, changed []string) {
	data := vehiclePageData{vehicleFormData: newVehicleFormData()}
	data.Vehicle, data.Changed = &v, changed
	if v.Plate != nil {
		data.Plate = br.PlateKey(*v.Plate)
	}
	var err error
	if data.related, err = c.relatedTo(rq.ctx(), rq.team.ID, patio.ResourceVehicle, v.ID); err != nil {
		c.fail(rq, err)
		return
	}
	if f == nil {
		f = newForm(c.vehicleRecords().values(rq, v))
	}
	c.render(rq, status, "vehicle", view{Title: v.Title, Data: data, Form: f})
}

// recordAction applies a status change of a vehicle, client or deal through the API's use case
// and goes back to its page; a change its rules refuse shows there as a problem.
func (c *Console) recordAction(base, done string, act func(rq *request, id string) error) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		err := act(rq, id)
		switch k := patio.KindOf(err); {
		case err == nil:
			c.done(rq, base+id, done)
		case k == patio.KindInvalid || k == patio.KindConflict:
			c.fail(rq, patio.Conflictf("%s", rq.p.Error(err)))
		default:
			c.fail(rq, err)
		}
	}
}

// vehicleName is the title of the path's vehicle, which its archiving's confirmation names.
func (c *Console) vehicleName(rq *request) (string, bool) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return v.Title, true
}

// clientName is the name of the path's client, which their deactivation's confirmation names.
func (c *Console) clientName(rq *request) (string, bool) {
	cl, err := c.d.Records.Clients.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return cl.Name, true
}

// dealName is the title of the path's deal, which its archiving's confirmation names.
func (c *Console) dealName(rq *request) (string, bool) {
	d, err := c.d.Records.Deals.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return d.Title, true
}

// vehicleArchive archives a vehicle through the API's use case and goes back to its page.
func (c *Console) vehicleArchive() handler {
	return c.recordAction("/console/vehicles/", "done.vehicle.archived", func(rq *request, id string) error {
		_, err := c.d.Records.Vehicles.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}

// vehicleRestore puts an archived vehicle back in the stock with the status posted (ativo when
// none) and goes back to its page.
func (c *Console) vehicleRestore() handler {
	return c.recordAction("/console/vehicles/", "done.vehicle.restored", func(rq *request, id string) error {
		status := rq.r.PostForm.Get("status")
		if status == "" {
			status = patio.VehicleActive
		}
		_, err := c.d.Records.Vehicles.Update(rq.ctx(), rq.team.ID, id, patio.VehicleInput{Status: patio.Some(status)})
		return err
	})
}
