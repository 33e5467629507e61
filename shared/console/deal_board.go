package console

import (
	"context"
	"html/template"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and their value; with what its head and its cards' move selects print, worked out
// once (see boardCard).
type boardColumn struct {
	Phase, Label string
	Deals        []boardCard
	Total        int
	// Value is the phase's open value in the page's language; Partial says it sums only the
	// newest patio.MaxLimit deals.
	Value   string
	Partial bool
	// More is how many of the phase's deals the column does not show.
	More int
	// Options are a card's move select's options, this phase selected.
	Options template.HTML
}

// boardData is the board: its columns and how the month went.
type boardData struct {
	Columns []boardColumn
	Month   monthResults
}

// monthResults is how the pipeline's month went: the deals won since the first of the month (in
// the team's time zone) and their value in the page's language, and the deals lost.
type monthResults struct {
	Won, Lost int
	WonValue  string
	// Partial is the number of closings read when there were more (the newest of each kind).
	Partial int
}

// monthClosings is how many closings of each kind the board reads: a dealership closes far fewer
// in a month; past it the head says its figures count the most recent.
const monthClosings = 5 * patio.MaxLimit

// dealBoard shows the pipeline: the team's open deals in columns by phase, each headed by its
// count and value, each read as one page of its own (the board reads one page per column,
// however many deals the team has), and this month's won and lost deals above them.
func (c *Console) dealBoard(rq *request) {
	if rq.filters().Get("view") == "list" {
		c.dealList(rq)
		return
	}
	var phases []phasePage
	var month monthResults
	g, ctx := errgroup.WithContext(rq.ctx())
	g.Go(func() (err error) { phases, err = c.phases(ctx, rq); return err })
	g.Go(func() (err error) { month, err = c.monthResults(ctx, rq); return err })
	if err := g.Wait(); err != nil {
		c.fail(rq, err)
		return
	}
	var all []patio.Deal // the cards of every column, named in one read
	for _, ph := range phases {
		all = append(all, ph.deals...)
	}
	cards, err := c.cards(rq, all)
	if err != nil {
		c.fail(rq, err)
		return
	}
	cols := make([]boardColumn, len(phases))
	for i, ph := range phases {
		n := len(ph.deals)
		cols[i] = boardColumn{Phase: ph.Phase, Label: rq.p.T("deal.phase." + ph.Phase), Total: ph.Total, Value: rq.p.Money(ph.Value),
			Partial: ph.Partial, More: max(0, ph.Total-n), Deals: cards[:n], Options: phaseOptions(rq.p, ph.Phase)}
		cards = cards[n:]
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: boardData{Columns: cols, Month: month}})
}

// monthResults reads the deals won and lost this month: those of each status updated since the
// month began (a closing updates its deal), kept when they closed in it.
func (c *Console) monthResults(ctx context.Context, rq *request) (monthResults, error) {
	today := patio.DateOf(rq.now.In(rq.p.Loc))
	start := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, rq.p.Loc)
	var won, lost []patio.Deal
	var wonMore, lostMore bool
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		won, wonMore, err = c.closedSince(ctx, rq.team.ID, patio.DealWon, start)
		return err
	})
	g.Go(func() (err error) {
		lost, lostMore, err = c.closedSince(ctx, rq.team.ID, patio.DealLost, start)
		return err
	})
	if err := g.Wait(); err != nil {
		return monthResults{}, err
	}
	var value money.Cents
	for _, d := range won {
		if d.Value != nil {
			value += *d.Value
		}
	}
	out := monthResults{Won: len(won), Lost: len(lost), WonValue: rq.p.Money(value)}
	if wonMore || lostMore {
		out.Partial = monthClosings
	}
	return out, nil
}

// closedSince returns the team's deals of a status closed at or after since (up to
// monthClosings, the newest; more says there were others).
func (c *Console) closedSince(ctx context.Context, teamID string, status patio.DealStatus, since time.Time) (out []patio.Deal, more bool, err error) {
	q := patio.DealQuery{ListQuery: patio.ListQuery{Limit: patio.Some(patio.MaxLimit), Status: []string{string(status)},
		UpdatedSince: new(patio.NewTimestamp(since)), NoTotal: true, Sort: "updated_at", Desc: true}}
	for {
		page, err := c.d.Records.Deals.List(ctx, teamID, q)
		if err != nil {
			return nil, false, err
		}
		for _, d := range page.Items {
			if d.ClosedAt != nil && !d.ClosedAt.Time().Before(since) {
				out = append(out, d)
			}
		}
		if page.Next == "" {
			return out, false, nil
		}
		if len(out) >= monthClosings {
			return out, true, nil
		}
		q.After, q.Page = page.Next, patio.Some(page.List.Page.Value+1)
	}
}
