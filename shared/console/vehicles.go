package console

import (
	"net/http"

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
	counts, err := c.stockCounts(rq)
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Counts = counts
	vq, err := form.VehicleQuery(q, moduleLimit)
	if err == nil {
		if err = parseCursor(q.Get("cursor"), &vq.ListQuery); err != nil {
			err = patio.Invalidf("cursor is not valid for this search")
		}
	}
	var page patio.Page[patio.Vehicle]
	if err == nil {
		page, err = c.d.Records.Vehicles.List(rq.ctx(), rq.team.ID, vq)
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

// stockCounts is how many of the team's vehicles have each status (each a one-record list, whose
// total the store keeps).
func (c *Console) stockCounts(rq *request) ([]statusCount, error) {
	var counts []statusCount
	for _, s := range patio.VehicleStatuses {
		page, err := c.d.Records.Vehicles.List(rq.ctx(), rq.team.ID, patio.VehicleQuery{
			ListQuery: patio.ListQuery{Limit: patio.Some(1), Status: []string{s}}})
		if err != nil {
			return nil, err
		}
		counts = append(counts, statusCount{Status: s, N: page.Total})
	}
	return counts, nil
}

// vehiclePageData is a vehicle's page: its fields, and the deals, activities and financial
// records that name it.
type vehiclePageData struct {
	Vehicle    patio.Vehicle
	Plate      string
	Deals      []patio.Deal
	Activities []patio.Activity
	Financial  []patio.FinancialRecord
}

// vehicleShow shows one vehicle of the team.
func (c *Console) vehicleShow(rq *request) {
	ctx, team := rq.ctx(), rq.team.ID
	v, err := c.d.Records.Vehicles.Get(ctx, team, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	data := vehiclePageData{Vehicle: v}
	if v.Plate != nil {
		data.Plate = br.PlateKey(*v.Plate)
	}
	all := func(statuses []string) patio.ListQuery {
		return patio.ListQuery{Limit: patio.Some(moduleLimit), Status: statuses}
	}
	deals, err := c.d.Records.Deals.List(ctx, team, patio.DealQuery{ListQuery: all(patio.DealStatuses), VehicleID: &v.ID})
	if err != nil {
		c.fail(rq, err)
		return
	}
	acts, err := c.d.Activities.List(ctx, team, patio.ActivityQuery{ListQuery: all(patio.ActivityStatuses), VehicleID: &v.ID})
	if err != nil {
		c.fail(rq, err)
		return
	}
	fin, err := c.d.Financial.List(ctx, team, patio.FinancialQuery{ListQuery: all(patio.FinancialStatuses), VehicleID: &v.ID})
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Deals, data.Activities, data.Financial = deals.Items, acts.Items, fin.Items
	c.render(rq, http.StatusOK, "vehicle", view{Title: v.Title, Data: data})
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

func (c *Console) vehicleName(rq *request) (string, bool) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return v.Title, true
}

func (c *Console) clientName(rq *request) (string, bool) {
	cl, err := c.d.Records.Clients.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return cl.Name, true
}

func (c *Console) dealName(rq *request) (string, bool) {
	d, err := c.d.Records.Deals.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return d.Title, true
}
