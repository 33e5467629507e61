package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// summaryData is a period's summary and its chart.
type summaryData struct {
	Summary patio.Summary
	Chart   chart
	Types   []string
}

// financialSummary shows the totals of a period (by type, category and status) and a chart of
// revenue, expense and cost per month. The period is this month unless from and to say otherwise.
func (c *Console) financialSummary(rq *request) {
	q := rq.filters()
	today := patio.DateOf(rq.now.In(rq.p.Loc))
	first := patio.Date{Year: today.Year, Month: today.Month, Day: 1}
	from, to := first, patio.DateOf(first.Start().AddDate(0, 1, -1))
	var p patio.Problems
	for name, dst := range map[string]*patio.Date{"from": &from, "to": &to} {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			d, err := patio.ParseDate(s)
			if err != nil {
				p.Add(patio.InQuery, name, "%s must be a date (YYYY-MM-DD)", name)
				continue
			}
			*dst = d
		}
	}
	err := p.Err()
	var s patio.Summary
	if err == nil {
		s, err = patio.SummarizePeriod(rq.ctx(), c.d.Financial, rq.team.ID, from, to)
	}
	values := url.Values{"from": {from.String()}, "to": {to.String()}}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "financial_summary", view{Title: rq.p.T("summary.title"),
			Data: summaryData{Types: patio.FinancialTypes}, Form: render.Refused(rq.p, q, err, "from", "to")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "financial_summary", view{Title: rq.p.T("summary.title"),
		Data: summaryData{Summary: s, Chart: monthChart(rq.p, s), Types: patio.FinancialTypes}, Form: render.NewForm(values)})
}
