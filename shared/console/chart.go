package console

import (
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// chart is a bar chart of a summary's months, drawn on the server as SVG: a group of bars per month
// (revenue, expense, cost), each bar's height proportional to its total. Every bar carries its
// month, type and amount in cents (data attributes) and a title a screen reader reads.
type chart struct {
	Width, Height int
	// Base is the bars' baseline (y); Left the plot's left edge, right of the scale's values.
	Base, Left int
	Bars       []bar
	Months     []axisLabel
	// Ticks are the scale's values (zero, half the largest total, the largest), at their height.
	Ticks []tick
	// Max is the largest total, formatted: the top of the scale.
	Max    string
	Legend []legendItem
}

// tick is a value of the scale and the height (y) it is drawn at.
type tick struct {
	Y    int
	Text string
}

// bar is one bar of the chart: its place and size, the month and type it sums, and its amount.
type bar struct {
	X, Y, W, H  int
	Type, Month string
	Cents       int64
	Title       string
}

// axisLabel is a month's name under its group of bars.
type axisLabel struct {
	X    int
	Text string
}

// legendItem names the colour of one type of bar.
type legendItem struct {
	Type, Text string
}

// Chart geometry, in SVG user units; the drawing is scaled to its card's width. The months share
// the plot's width (each bar between minBar and maxBar wide).
const (
	chartHeight = 260
	chartTop    = 20
	chartBottom = 30
	chartLeft   = 110 // room for the scale's values
	chartWidth  = 720
	barGap      = 2
	monthGap    = 18
	minBar      = 8
	maxBar      = 40
)

// monthChart draws a summary's months.
func monthChart(p locale.Printer, s patio.Summary) chart {
	types := patio.FinancialTypes
	var maxCents int64
	for _, m := range s.Months {
		for _, t := range types {
			maxCents = max(maxCents, int64(m.ByType[t]))
		}
	}
	months := max(1, len(s.Months))
	barWidth := min(maxBar, max(minBar, (chartWidth-chartLeft-10)/months/len(types)-barGap-monthGap/len(types)))
	groupWidth := len(types)*(barWidth+barGap) + monthGap
	c := chart{Width: max(chartWidth, chartLeft+10+months*groupWidth), Height: chartHeight, Left: chartLeft,
		Base: chartHeight - chartBottom, Max: p.Money(moneyOf(maxCents))}
	plot := c.Base - chartTop
	for _, f := range []int64{0, 1, 2} {
		c.Ticks = append(c.Ticks, tick{Y: c.Base - int(f*int64(plot)/2), Text: p.Money(moneyOf(maxCents * f / 2))})
	}
	for i, m := range s.Months {
		x := chartLeft + 10 + i*groupWidth
		month := monthLabel(p, m.Month)
		c.Months = append(c.Months, axisLabel{X: x + (len(types)*(barWidth+barGap))/2, Text: month})
		for j, t := range types {
			cents := int64(m.ByType[t])
			h := 0
			if maxCents > 0 {
				h = int(cents * int64(plot) / maxCents)
			}
			if cents > 0 && h == 0 {
				h = 1 // a total above zero shows
			}
			c.Bars = append(c.Bars, bar{X: x + j*(barWidth+barGap), Y: c.Base - h, W: barWidth, H: h, Type: t,
				Month: m.Month.String()[:7], Cents: cents,
				Title: month + " · " + p.T("financial.type."+t) + ": " + p.Money(moneyOf(cents))})
		}
	}
	for _, t := range types {
		c.Legend = append(c.Legend, legendItem{Type: t, Text: p.T("financial.type." + t)})
	}
	return c
}

// monthLabel names a month: "mar/2026" in Portuguese, "Mar 2026" in English.
func monthLabel(p locale.Printer, d patio.Date) string {
	return p.T("month."+d.Start().Format("01")) + " " + d.Start().Format("2006")
}

// moneyOf is cents as money.
func moneyOf(c int64) money.Cents { return money.Cents(c) }
