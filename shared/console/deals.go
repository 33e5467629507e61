package console

import (
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and their value.
type boardColumn struct {
	Phase string
	Deals []boardCard
	phaseTotal
	// More is how many of the phase's deals the column does not show.
	More int
}

// phaseTotal is how many open deals a phase of the pipeline holds and the sum of their values.
type phaseTotal struct {
	Total int
	Value money.Cents
	// Partial says Value sums only the newest patio.MaxLimit deals (the phase holds more).
	Partial bool
}

// boardCard is a deal on the board, with its age in days and the names of its client and
// vehicle (empty when the record is gone).
type boardCard struct {
	patio.Deal
	Days            int
	Client, Vehicle string
}

// dealBoard shows the pipeline: the team's open deals in columns by phase, each headed by its
// count and value, each read as one page of its own (the board reads one page per column,
// however many deals the team has).
func (c *Console) dealBoard(rq *request) {
	if rq.filters().Get("view") == "list" {
		c.dealList(rq)
		return
	}
	phases, err := c.phases(rq)
	if err != nil {
		c.fail(rq, err)
		return
	}
	var all []patio.Deal
	for _, ph := range phases {
		all = append(all, ph.deals[:min(len(ph.deals), moduleLimit)]...)
	}
	cards, err := c.cards(rq, all)
	if err != nil {
		c.fail(rq, err)
		return
	}
	cols := make([]boardColumn, len(phases))
	for i, ph := range phases {
		n := min(len(ph.deals), moduleLimit)
		cols[i] = boardColumn{Phase: ph.Phase, phaseTotal: ph.phaseTotal, More: ph.Total - n, Deals: cards[:n]}
		cards = cards[n:]
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: cols})
}

// cards returns deals as the board and the list show them: with their age in days and the names
// of their client and vehicle.
func (c *Console) cards(rq *request, deals []patio.Deal) ([]boardCard, error) {
	var clientIDs, vehicleIDs []string
	for _, d := range deals {
		clientIDs = append(clientIDs, d.ClientID)
		if d.VehicleID != nil {
			vehicleIDs = append(vehicleIDs, *d.VehicleID)
		}
	}
	clients, vehicles, err := c.cardNames(rq, clientIDs, vehicleIDs)
	if err != nil {
		return nil, err
	}
	out := make([]boardCard, len(deals))
	for i, d := range deals {
		out[i] = boardCard{Deal: d, Client: clients[d.ClientID], Days: int(rq.now.Sub(d.CreatedAt.Time()) / (24 * time.Hour))}
		if d.VehicleID != nil {
			out[i].Vehicle = vehicles[*d.VehicleID]
		}
	}
	return out, nil
}

// cardNames reads the clients and the vehicles the board's cards name, one batch read each (at
// once), and returns their names by id: the client's name, the vehicle's plate and title.
func (c *Console) cardNames(rq *request, clientIDs, vehicleIDs []string) (clients, vehicles map[string]string, err error) {
	clients, vehicles = map[string]string{}, map[string]string{}
	g, ctx := errgroup.WithContext(rq.ctx())
	g.Go(func() error {
		found, err := c.d.Records.Clients.GetMany(ctx, rq.team.ID, clientIDs)
		for _, cl := range found {
			clients[cl.ID] = cl.Name
		}
		return err
	})
	g.Go(func() error {
		found, err := c.d.Records.Vehicles.GetMany(ctx, rq.team.ID, vehicleIDs)
		for _, v := range found {
			vehicles[v.ID] = vehicleName(v)
		}
		return err
	})
	return clients, vehicles, g.Wait()
}

// dealListData is a page of the pipeline's list view.
type dealListData struct {
	Items                   []boardCard
	Total                   int
	Next                    string
	Statuses, Phases, Sorts []string
}

// dealList is the pipeline's list view: the team's deals with the public API's filters, sorts
// and q, paged with cursors, each with its client's and vehicle's names.
func (c *Console) dealList(rq *request) {
	q := rq.filters()
	data := dealListData{Statuses: patio.DealStatuses, Phases: patio.DealPhases, Sorts: patio.DealSorts}
	dq, err := form.DealQuery(q, moduleLimit)
	if err == nil {
		if err = parseCursor(q.Get("cursor"), &dq.ListQuery); err != nil {
			err = patio.Invalidf("cursor is not valid for this search")
		}
	}
	var page patio.Page[patio.Deal]
	if err == nil {
		page, err = c.d.Records.Deals.List(rq.ctx(), rq.team.ID, dq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "deals_list", view{Title: rq.p.T("pipeline.title"), Data: data,
			Form: refused(rq.p, q, err, form.DealFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	if data.Items, err = c.cards(rq, page.Items); err != nil {
		c.fail(rq, err)
		return
	}
	data.Total = page.Total
	data.Next = nextPage(q, form.DealFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "deals_list", view{Title: rq.p.T("pipeline.title"), Data: data, Form: newForm(q)})
}

// phasePage is one phase's open deals as read for the board and the overview: the newest page
// of patio.MaxLimit, the phase's count and their value.
type phasePage struct {
	Phase string
	phaseTotal
	deals []patio.Deal
}

// phases reads every phase of the pipeline at once, a page of patio.MaxLimit open deals each
// (newest first), and sums their values.
func (c *Console) phases(rq *request) ([]phasePage, error) {
	out := make([]phasePage, len(patio.DealPhases))
	g, ctx := errgroup.WithContext(rq.ctx())
	for i, phase := range patio.DealPhases {
		g.Go(func() error {
			page, err := c.d.Records.Deals.List(ctx, rq.team.ID, patio.DealQuery{
				ListQuery: patio.ListQuery{Limit: patio.Some(patio.MaxLimit), Status: []string{patio.DealOpen}}, Phase: []string{phase}})
			if err != nil {
				return err
			}
			p := phasePage{Phase: phase, deals: page.Items}
			p.Total, p.Partial = page.Total, page.Total > len(page.Items)
			for _, d := range page.Items {
				if d.Value != nil {
					p.Value += *d.Value
				}
			}
			out[i] = p
			return nil
		})
	}
	return out, g.Wait()
}

// dealPhase moves a deal to another phase of the pipeline (a plain form post of its new phase;
// the board's drag and drop, when there is one, posts the same). It fires deal.phase_changed as
// a change through the API does, and goes back to the board.
func (c *Console) dealPhase(rq *request) {
	phase := rq.r.PostForm.Get("phase")
	_, err := c.d.Records.Deals.Update(rq.ctx(), rq.team.ID, rq.r.PathValue("id"), patio.DealInput{Phase: patio.Some(phase)})
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/deals", "done.deal.moved")
}

// dealArchive archives a deal through the API's use case and goes back to its page.
func (c *Console) dealArchive() handler {
	return c.recordAction("/console/deals/", "done.deal.archived", func(rq *request, id string) error {
		_, err := c.d.Records.Deals.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}
