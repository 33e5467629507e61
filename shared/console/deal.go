package console

import (
	"context"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// dealFormData is what the deal form and a deal's page offer and show.
type dealFormData struct {
	Deal        *patio.Deal
	Client      string // the client's name
	Vehicle     string // the vehicle's plate and title
	Choices     linkChoices
	Phases      []string
	Methods     []string
	LostReasons []string
	// Revenue is, after a win, the query string of the sale's revenue record, prefilled; Sale is
	// that record once it was made (Revenue is then empty).
	Revenue string
	Sale    *patio.FinancialRecord
	// Changed lists what changed since a stale edit form was loaded.
	Changed []string
	// History is a deal's latest audit entries, and Edit its edit form (its page).
	History []patio.AuditEntry
	Edit    *render.Form
}

// newDealFormData is the deal form's choices: the phases, payment methods and lost reasons.
func newDealFormData() dealFormData {
	return dealFormData{Phases: patio.DealPhases, Methods: patio.DealPaymentMethods, LostReasons: patio.DealLostReasons}
}

// dealEditable is a deal's editable fields as its form holds them (its status moves by its own
// buttons).
func dealEditable(rq *request, d patio.Deal) map[string]string {
	m := map[string]string{"title": d.Title, "client_id": d.ClientID, "vehicle_id": ptrString(d.VehicleID), "value": "",
		"phase": d.Phase, "payment_method": ptrString(d.PaymentMethod), "expected_close_date": "", "notes": ptrString(d.Notes)}
	if d.Value != nil {
		m["value"] = rq.p.Decimal(*d.Value)
	}
	if d.ExpectedCloseDate != nil {
		m["expected_close_date"] = d.ExpectedCloseDate.String()
	}
	return m
}

// dealRecords is the pipeline's part of the shared create and edit flows: a deal's client and
// vehicle are found by what was typed (a name or document, a plate), as an activity's links are.
func (c *Console) dealRecords() records[patio.Deal, patio.DealInput] {
	return records[patio.Deal, patio.DealInput]{svc: c.d.Records.Deals, name: "deal", base: dealsPath + "/",
		fields: form.DealFields,
		read: func(values url.Values, p locale.Printer, edit bool) (patio.DealInput, error) {
			return form.Deal(values, p.Lang, edit)
		},
		check: func(in patio.DealInput, _ time.Time) error { return in.ValidateNew() },
		id:    func(d patio.Deal) string { return d.ID },
		links: func(d patio.Deal) (*string, *string, *string) { return d.VehicleID, &d.ClientID, nil },
		values: func(rq *request, d patio.Deal) url.Values {
			return linkedFormValues(dealEditable(rq, d), d.Revision, c.labelLinks(rq.ctx(), rq.team.ID, d.VehicleID, &d.ClientID, nil))
		},
		editable: dealEditable}
}

// dealPage reads the path's deal and renders its page with the state f of its move forms (nil:
// empty).
func (c *Console) dealPage(rq *request, status int, f *render.Form) {
	d, err := c.d.Records.Deals.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderDeal(rq, status, d, f, nil, nil, nil)
}

// renderDeal renders a deal's page: moves is the state of its move forms (a refused win or loss),
// edit that of its edit form (nil: its current values), with the links to choose among and, after
// a stale edit, what changed.
func (c *Console) renderDeal(rq *request, status int, d patio.Deal, moves, edit *render.Form, choices linkChoices, changed []string) {
	ctx, team := rq.ctx(), rq.team.ID
	data := newDealFormData()
	data.Deal, data.Choices, data.Changed = &d, choices, changed
	l := c.labelLinks(ctx, team, d.VehicleID, &d.ClientID, nil)
	data.Client, data.Vehicle = l.Client, l.Vehicle
	var err error
	if data.History, err = c.history(ctx, team, patio.ResourceDeal, d.ID); err != nil {
		c.fail(rq, err)
		return
	}
	if d.Status == patio.DealWon {
		if data.Sale, err = c.saleRevenue(ctx, team, d.ID); err != nil {
			c.fail(rq, err)
			return
		}
	}
	if d.Status == patio.DealWon && data.Sale == nil {
		q := url.Values{"type": {"revenue"}, "category": {"venda-veiculo"}, "description": {d.Title}, "deal_id": {d.ID},
			"client_id": {d.ClientID}}
		if d.Value != nil {
			q.Set("amount", rq.p.Decimal(*d.Value))
		}
		if d.PaymentMethod != nil {
			q.Set("payment_method", *d.PaymentMethod)
		}
		if d.VehicleID != nil {
			q.Set("vehicle_id", *d.VehicleID)
		}
		data.Revenue = q.Encode()
	}
	if moves == nil {
		moves = render.NewForm(nil)
	}
	if edit == nil {
		edit = render.NewForm(linkedFormValues(dealEditable(rq, d), d.Revision, l)) // the links as read above
	}
	data.Edit = edit
	c.render(rq, status, "deal", view{Title: d.Title, Data: data, Form: moves})
}

// saleRevenue returns a won deal's sale revenue (a venda-veiculo revenue record of the deal, not
// cancelled), or nil when none was recorded: its page then links to it instead of offering to
// record it again. The records of a deal are read from their deal_id copies, written in the
// record's own transaction, so one just made is found.
func (c *Console) saleRevenue(ctx context.Context, teamID, dealID string) (*patio.FinancialRecord, error) {
	page, err := c.d.Financial.List(ctx, teamID, patio.FinancialQuery{DealID: &dealID, Type: []string{"revenue"},
		Category: []string{"venda-veiculo"}, ListQuery: patio.ListQuery{Limit: patio.Some(1),
			Status: []string{string(patio.FinancialPending), string(patio.FinancialPaid)}}})
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	return &page.Items[0], nil
}

// boardCard is a deal as the board and the list show it: its own fields the cards name, its age
// in days and the names of its client and vehicle (empty when the record is gone), and what a
// card prints worked out once here: a board of 60 cards made each of these a template call per
// card (each a reflective call, and a search of the embedded patio.Deal for every field), which
// was most of its rendering.
type boardCard struct {
	ID, Title, Status, Phase string
	Value                    *money.Cents
	Days                     int
	Client, Vehicle          string
	// Path is the deal's page under the base path, Amount its value in the page's language (""
	// for none), InPhase how long it has been in its phase, in words.
	Path, Amount, InPhase string
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
	clients, vehicles, err := c.cardNames(rq.ctx(), rq.team.ID, clientIDs, vehicleIDs)
	if err != nil {
		return nil, err
	}
	out := make([]boardCard, len(deals))
	for i, d := range deals {
		out[i] = boardCard{ID: d.ID, Title: d.Title, Status: string(d.Status), Phase: d.Phase, Value: d.Value, Client: clients[d.ClientID],
			Days: daysSince(rq.now, d.CreatedAt), Path: rq.URL(dealsPath + "/" + d.ID),
			InPhase: inPhase(rq.p, daysSince(rq.now, d.InPhaseSince()))}
		if d.Value != nil {
			out[i].Amount = rq.p.Money(*d.Value)
		}
		if d.VehicleID != nil {
			out[i].Vehicle = vehicles[*d.VehicleID]
		}
	}
	return out, nil
}

// daysSince is how many whole days have passed from t to now.
func daysSince(now time.Time, t patio.Timestamp) int {
	return int(now.Sub(t.Time()) / (24 * time.Hour))
}

// inPhase is how long a deal has been in its phase, in words: "nesta fase desde hoje" on its
// first day there, not "há 0 dias".
func inPhase(p locale.Printer, days int) string {
	switch days {
	case 0:
		return p.T("pipeline.age.today")
	case 1:
		return p.T("pipeline.age.one")
	}
	return p.T("pipeline.age", days)
}

// cardNames reads the clients and the vehicles the board's cards name, one batch read each (at
// once), and returns their names by id: the client's name, the vehicle's plate and title.
func (c *Console) cardNames(ctx context.Context, teamID string, clientIDs, vehicleIDs []string) (clients, vehicles map[string]string, err error) {
	clients, vehicles = map[string]string{}, map[string]string{}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		found, err := c.d.Records.Clients.Names(ctx, teamID, clientIDs)
		for _, cl := range found {
			clients[cl.ID] = cl.Name
		}
		return err
	})
	g.Go(func() error {
		found, err := c.d.Records.Vehicles.Names(ctx, teamID, vehicleIDs)
		for _, v := range found {
			vehicles[v.ID] = vehicleName(v)
		}
		return err
	})
	return clients, vehicles, g.Wait()
}

// phaseTotal is how many open deals a phase of the pipeline holds and the sum of their values.
type phaseTotal struct {
	Total int
	Value money.Cents
	// Partial says Value sums only the newest patio.MaxLimit deals (the phase holds more).
	Partial bool
}

// boardCards is how many cards a column of the board shows, its phase's newest open deals: a
// column's head says how many it holds and links to the list of them all. Ten keep the board
// short enough to scan at a glance, and on a phone, where the columns stack, to reach the last
// phase without scrolling past 150 cards; they also bound the board's reads, which are per card
// (its deal in its column's page, its client's and its vehicle's names in one batch read each).
const boardCards = 10

// phasePage is one phase's open deals as the board reads them: the newest page of boardCards,
// with the phase's count and value.
type phasePage struct {
	Phase string
	phaseTotal
	deals []patio.Deal
}

// phases reads the board at once: the totals by phase (phaseTotals) and every phase's newest
// boardCards open deals, a page each.
func (c *Console) phases(ctx context.Context, rq *request) ([]phasePage, error) {
	out := make([]phasePage, len(patio.DealPhases))
	var totals map[string]phaseTotal
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		totals, err = c.phaseTotals(ctx, rq.team.ID)
		return err
	})
	for i, phase := range patio.DealPhases {
		g.Go(func() error {
			page, err := c.d.Records.Deals.List(ctx, rq.team.ID, patio.DealQuery{
				ListQuery: patio.ListQuery{Limit: patio.Some(boardCards), Status: []string{string(patio.DealOpen)}, NoTotal: true, Brief: true},
				Phase:     []string{phase}})
			out[i] = phasePage{Phase: phase, deals: page.Items[:min(len(page.Items), boardCards)]}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].phaseTotal = totals[out[i].Phase]
	}
	return out, nil
}

// phaseTotals returns how many open deals each phase holds and their value: the sums the store
// keeps, in one read of its count items; for a team with deals written before it kept them, the
// sum of each phase's newest patio.MaxLimit (Partial when the phase holds more).
func (c *Console) phaseTotals(ctx context.Context, teamID string) (map[string]phaseTotal, error) {
	sums, ok, err := c.d.Records.Deals.Sums(ctx, teamID, "phase", string(patio.DealOpen))
	if err != nil {
		return nil, err
	}
	out := make(map[string]phaseTotal, len(patio.DealPhases))
	if ok {
		for _, phase := range patio.DealPhases {
			out[phase] = phaseTotal{Total: sums[phase].Count, Value: sums[phase].Amount}
		}
		return out, nil
	}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	for _, phase := range patio.DealPhases {
		g.Go(func() error {
			page, err := c.d.Records.Deals.List(ctx, teamID, patio.DealQuery{
				ListQuery: patio.ListQuery{Limit: patio.Some(patio.MaxLimit), Status: []string{string(patio.DealOpen)}}, Phase: []string{phase}})
			if err != nil {
				return err
			}
			t := phaseTotal{Total: page.Total, Partial: page.Total > len(page.Items)}
			for _, d := range page.Items {
				if d.Value != nil {
					t.Value += *d.Value
				}
			}
			mu.Lock()
			out[phase] = t
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
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
