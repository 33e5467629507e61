package dynamostore

import (
	"context"
	"reflect"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

const dealPrefix = "d#"

// dealRow is a deal as stored in DealsTable.
type dealRow struct {
	PK                string  `dynamo:"pk,hash"`
	SK                string  `dynamo:"sk,range"`
	ID                string  `dynamo:"id"`
	Title             string  `dynamo:"title"`
	ClientID          string  `dynamo:"client_id"`
	VehicleID         *string `dynamo:"vehicle_id"`
	ValueCents        *int64  `dynamo:"value_cents"`
	Phase             string  `dynamo:"phase"`
	Status            string  `dynamo:"status"`
	LostReason        *string `dynamo:"lost_reason"`
	PaymentMethod     *string `dynamo:"payment_method"`
	ExpectedCloseDate *string `dynamo:"expected_close_date"`
	Notes             *string `dynamo:"notes,allowempty"`
	ClosedAt          *string `dynamo:"closed_at"`
	CreatedAt         string  `dynamo:"created_at"`
	UpdatedAt         string  `dynamo:"updated_at"`
	Rev               int     `dynamo:"rev"`

	LSIUpdated string `dynamo:"lsi_updated"`
	LSIValue   string `dynamo:"lsi_value"`
	LSITitle   string `dynamo:"lsi_title"`
	LSIClose   string `dynamo:"lsi_close"`
}

func dealSK(id string) string { return dealPrefix + id }

func dateStr(d *patio.Date) *string {
	if d == nil {
		return nil
	}
	return ptrTo(d.String())
}

func toDealRow(d patio.Deal) dealRow {
	var value *string
	if d.Value != nil {
		value = padded(12, int64(*d.Value))
	}
	return dealRow{
		PK: d.TeamID, SK: dealSK(d.ID), ID: d.ID, Title: d.Title, ClientID: d.ClientID,
		VehicleID: d.VehicleID, ValueCents: centsPtr(d.Value), Phase: d.Phase, Status: d.Status,
		LostReason: d.LostReason, PaymentMethod: d.PaymentMethod, ExpectedCloseDate: dateStr(d.ExpectedCloseDate),
		Notes: d.Notes, ClosedAt: tsPtr(d.ClosedAt), CreatedAt: d.CreatedAt.String(), UpdatedAt: d.UpdatedAt.String(),
		Rev: d.Rev,

		LSIUpdated: sortKey(ptrTo(d.UpdatedAt.String()), d.ID),
		LSIValue:   sortKey(value, d.ID),
		LSITitle:   sortKey(foldedText(d.Title), d.ID),
		LSIClose:   sortKey(dateStr(d.ExpectedCloseDate), d.ID),
	}
}

func (r dealRow) deal() (patio.Deal, error) {
	d := patio.Deal{
		ID: r.ID, TeamID: r.PK, Title: r.Title, ClientID: r.ClientID, VehicleID: r.VehicleID,
		Phase: r.Phase, Status: r.Status, LostReason: r.LostReason, PaymentMethod: r.PaymentMethod,
		Notes: r.Notes, Rev: r.Rev,
	}
	if r.ValueCents != nil {
		d.Value = ptrTo(money.Cents(*r.ValueCents))
	}
	var err error
	if r.ExpectedCloseDate != nil {
		date, err := patio.ParseDate(*r.ExpectedCloseDate)
		if err != nil {
			return d, err
		}
		d.ExpectedCloseDate = &date
	}
	if r.ClosedAt != nil {
		t, err := patio.ParseTimestamp(*r.ClosedAt)
		if err != nil {
			return d, err
		}
		d.ClosedAt = &t
	}
	if d.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return d, err
	}
	d.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return d, err
}

func (s *Store) deals() dynamo.Table { return s.db.Table(s.tables.Deals) }

// CreateDeal stores a new deal, atomically with its requirements (KindConflict when the client is
// not active or the vehicle not ativo or reservado).
func (s *Store) CreateDeal(ctx context.Context, w patio.DealWrite) error {
	return wrap(s.writeDeal(ctx, w, -1), "create deal", w.Deal.ID)
}

// GetDeal returns a team's deal (strongly consistent), or KindNotFound.
func (s *Store) GetDeal(ctx context.Context, teamID, id string) (patio.Deal, error) {
	return getRecord(ctx, s.deals(), teamID, dealSK(id), "deal", dealRow.deal)
}

// UpdateDeal applies change to the stored deal and performs the write it returns in one
// transaction with its requirements; a lost race (the deal's or the sold vehicle's revision moved)
// re-reads and re-applies change.
func (s *Store) UpdateDeal(ctx context.Context, teamID, id string,
	change func(patio.Deal) (patio.DealWrite, error)) (patio.Deal, error) {
	var w patio.DealWrite
	d, err := updateRecord(
		func() (patio.Deal, error) { return s.GetDeal(ctx, teamID, id) },
		func(cur patio.Deal) (patio.Deal, bool, error) {
			var err error
			if w, err = change(cur); err != nil {
				return cur, false, err
			}
			return w.Deal, w.Sell != nil || !reflect.DeepEqual(cur, w.Deal), nil
		},
		func(cur, next patio.Deal) (patio.Deal, error) {
			w.Deal = next
			w.Deal.Rev = cur.Rev + 1
			return w.Deal, s.writeDeal(ctx, w, cur.Rev)
		})
	return d, wrap(err, "update deal", id)
}

// writeDeal puts the deal (new when prevRev < 0, else conditioned on prevRev) with its requirements
// in one transaction. A failed requirement is KindConflict; a moved revision is errRevConflict.
func (s *Store) writeDeal(ctx context.Context, w patio.DealWrite, prevRev int) error {
	d := w.Deal
	put := func() *dynamo.Put {
		p := s.deals().Put(toDealRow(d))
		if prevRev < 0 {
			return p.If("attribute_not_exists(pk)")
		}
		return p.If("'rev' = ?", prevRev)
	}
	if w.ActiveClient == "" && w.UsableVehicle == "" && w.Sell == nil {
		err := put().Run(ctx)
		if dynamo.IsCondCheckFailed(err) && prevRev >= 0 {
			return errRevConflict
		}
		return err
	}
	// Each transaction item's failure, in the order the items are added.
	var failures []error
	err := s.runTx(ctx, func() *dynamo.WriteTx {
		tx := s.db.WriteTx().Put(put())
		failures = []error{errRevConflict}
		if w.ActiveClient != "" {
			tx.Check(s.db.Table(s.tables.Clients).Check("pk", d.TeamID).Range("sk", clientSK(w.ActiveClient)).
				If("'status' = ?", patio.ClientActive))
			failures = append(failures, patio.Conflictf("client_id does not name an active client of this team"))
		}
		if w.UsableVehicle != "" {
			tx.Check(s.vehicles().Check("pk", d.TeamID).Range("sk", vehicleSK(w.UsableVehicle)).
				If("'status' IN (?, ?)", patio.VehicleActive, patio.VehicleReserved))
			failures = append(failures, patio.Conflictf("vehicle_id does not name an ativo or reservado vehicle of this team"))
		}
		if w.Sell != nil {
			tx.Put(s.vehicles().Put(toVehicleRow(*w.Sell)).If("'rev' = ?", w.Sell.Rev-1))
			failures = append(failures, errRevConflict)
		}
		return tx
	})
	for i, f := range failures {
		if cancelReason(err, i) == "ConditionalCheckFailed" {
			if i == 0 && prevRev < 0 {
				return err
			}
			return f
		}
	}
	return err
}

// dealSorts maps each sortable field to its index.
var dealSorts = map[string]sortIndex{
	"created_at":          {},
	"updated_at":          {index: "by_updated", attr: "lsi_updated"},
	"value":               {index: "by_value", attr: "lsi_value", optional: true},
	"title":               {index: "by_title", attr: "lsi_title"},
	"expected_close_date": {index: "by_close_date", attr: "lsi_close", optional: true},
}

// ListDeals returns one page of a team's deals in the requested order and the total matching.
func (s *Store) ListDeals(ctx context.Context, teamID string, q patio.DealQuery) ([]patio.Deal, int, error) {
	var f filter
	f.common(q.ListQuery)
	f.in("phase", q.Phase)
	if q.ClientID != "" {
		f.add("'client_id' = ?", q.ClientID)
	}
	if q.VehicleID != "" {
		f.add("'vehicle_id' = ?", q.VehicleID)
	}
	if q.ValueMin != nil {
		f.add("'value_cents' >= ?", int64(*q.ValueMin))
	}
	if q.ValueMax != nil {
		f.add("'value_cents' <= ?", int64(*q.ValueMax))
	}
	return listRecords(ctx, s.deals(), teamID, dealPrefix, "deals", dealSorts[q.Sort], q.ListQuery, f, dealRow.deal)
}
