package console

import (
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// stockListData is a page of the stock: the vehicles, how many match, the counts per status (from
// the maintained counts) and the choices of the filters.
type stockListData struct {
	Items    []stockRow
	Total    int
	Next     string
	Counts   []statusCount
	Statuses []string
	Phases   []string
	Fuels    []string
	Sorts    []string
}

// stockRow is a vehicle of the stock's list with the whole days it has been in stock: since it
// was registered, until it was sold (until now while it is not).
type stockRow struct {
	patio.Vehicle
	DaysInStock int
}

// Cover is the thumbnail URL of the vehicle's first photo when it is ready, or "".
func (r stockRow) Cover() string {
	if len(r.Photos) == 0 || r.Photos[0].URLs == nil {
		return ""
	}
	return r.Photos[0].URLs.Thumb
}

// photosSource is the Content-Security-Policy's img-src addition for the covers: " <origin>", or
// "" when the console shows none.
func (c *Console) photosSource() string {
	if c.d.PhotosOrigin == "" {
		return ""
	}
	return " " + c.d.PhotosOrigin
}

// stockRows returns the page's vehicles with their days in stock at now.
func stockRows(vs []patio.Vehicle, now time.Time) []stockRow {
	out := make([]stockRow, len(vs))
	for i, v := range vs {
		until := now
		if v.SoldAt != nil {
			until = v.SoldAt.Time()
		}
		out[i] = stockRow{Vehicle: v, DaysInStock: max(0, int(until.Sub(v.CreatedAt.Time())/(24*time.Hour)))}
	}
	return out
}

// vehicleList shows the team's vehicles with the public API's filters, sorts and q, paged with
// cursors, the counts per status at its head.
func (c *Console) vehicleList(rq *request) {
	q := rq.filters()
	data := stockListData{Statuses: patio.VehicleStatuses, Phases: patio.VehiclePhases, Fuels: patio.VehicleFuels,
		Sorts: patio.VehicleSorts}
	vq, err := form.VehicleQuery(q, rq.p.Lang, moduleLimit)
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
			Form: render.Refused(rq.p, q, err, form.VehicleFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = stockRows(page.Items, rq.now), page.Total
	data.Next = nextPage(q, form.VehicleFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "vehicles", view{Title: rq.p.T("stock.title"), Data: data, Form: render.NewForm(q)})
}
