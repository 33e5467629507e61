package console

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/patio"
)

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
