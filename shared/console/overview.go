package console

import (
	"net/http"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// healthWindow is the window of a webhook's health on the overview.
const healthWindow = 24 * time.Hour

// healthCap bounds how many deliveries the overview counts per webhook: more shows as "more than".
const healthCap = 2 * webhook.MaxDeliveryLimit

// webhookHealth is one webhook's state over the last 24 hours.
type webhookHealth struct {
	Webhook    webhook.Webhook
	Deliveries int
	Failures   int
	// Capped says there were more deliveries than counted.
	Capped      bool
	LastSuccess time.Time
	// Since is the window's start, as the deliveries filter takes it.
	Since string
}

// overviewData is the overview's figures, each linking to the list behind it.
type overviewData struct {
	Webhooks           []webhookHealth
	OverdueActivities  int
	OverdueFinancial   int
	Month              patio.Summary
	MonthFrom, MonthTo string
	Minute, Day        int
	Limits             patio.Limits
	Stock              []statusCount
	Pipeline           []phaseRow
}

// phaseRow is one phase of the pipeline on the overview: its open deals' count and value.
type phaseRow struct {
	Phase string
	phaseTotal
}

// overview is the console's home: each webhook's health, what is overdue, the stock by status,
// the pipeline's open deals by phase, this month's revenue, expense and cost, and today's API
// requests against the plan's limits.
func (c *Console) overview(rq *request) {
	ctx, team := rq.ctx(), rq.team.ID
	var d overviewData
	hs, err := c.d.Webhooks.List(ctx, team, false)
	if err != nil {
		c.fail(rq, err)
		return
	}
	since := rq.now.Add(-healthWindow)
	for _, w := range hs {
		h, err := c.health(rq, w, since)
		if err != nil {
			c.fail(rq, err)
			return
		}
		d.Webhooks = append(d.Webhooks, h)
	}
	one := patio.ListQuery{Limit: patio.Some(1)}
	acts, err := c.d.Activities.List(ctx, team, patio.ActivityQuery{ListQuery: one, Overdue: true, Now: rq.now})
	if err != nil {
		c.fail(rq, err)
		return
	}
	fins, err := c.d.Financial.List(ctx, team, patio.FinancialQuery{ListQuery: one, Overdue: true})
	if err != nil {
		c.fail(rq, err)
		return
	}
	d.OverdueActivities, d.OverdueFinancial = acts.Total, fins.Total
	if d.Stock, err = c.stockCounts(rq.ctx(), rq.team.ID); err != nil {
		c.fail(rq, err)
		return
	}
	totals, err := c.phaseTotals(ctx, rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return
	}
	for _, phase := range patio.DealPhases {
		d.Pipeline = append(d.Pipeline, phaseRow{Phase: phase, phaseTotal: totals[phase]})
	}
	today := patio.DateOf(rq.now.In(rq.p.Loc))
	from := patio.Date{Year: today.Year, Month: today.Month, Day: 1}
	to := patio.DateOf(from.Start().AddDate(0, 1, -1))
	if d.Month, err = patio.SummarizePeriod(ctx, c.d.Financial, team, from, to); err != nil {
		c.fail(rq, err)
		return
	}
	d.MonthFrom, d.MonthTo = from.String(), to.String()
	if d.Minute, d.Day, err = c.d.Usage.RequestsCounted(ctx, team, rq.now); err != nil {
		c.fail(rq, err)
		return
	}
	d.Limits = rq.team.Plan.Limits()
	c.render(rq, http.StatusOK, "overview", view{Title: rq.p.T("overview.title"), Data: d})
}

// health counts a webhook's deliveries since since (at most healthCap), its failed ones, and finds
// its last successful delivery.
func (c *Console) health(rq *request, w webhook.Webhook, since time.Time) (webhookHealth, error) {
	h := webhookHealth{Webhook: w, Since: since.In(rq.p.Loc).Format("2006-01-02T15:04")}
	q := webhook.DeliveryQuery{Since: since, Limit: webhook.MaxDeliveryLimit}
	for {
		page, err := c.d.Deliveries.ListWebhookDeliveries(rq.ctx(), w, q)
		if err != nil {
			return h, err
		}
		for _, d := range page.Deliveries {
			h.Deliveries++
			if d.Status == webhook.DeliveryFailed {
				h.Failures++
			}
		}
		if page.NextCursor == "" {
			break
		}
		if h.Deliveries >= healthCap {
			h.Capped = true
			break
		}
		q.Cursor = page.NextCursor
	}
	last, err := c.d.Deliveries.ListWebhookDeliveries(rq.ctx(), w, webhook.DeliveryQuery{Statuses: []string{webhook.DeliverySucceeded}, Limit: 1})
	if err != nil {
		return h, err
	}
	if len(last.Deliveries) == 1 {
		h.LastSuccess = last.Deliveries[0].UpdatedAt
	}
	return h, nil
}
