package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestEventPrefix starts the id of every test event ("evt_test_" and 32 hex digits).
const TestEventPrefix = "evt_test_"

// SampleEvent returns a test event of type typ for a team: id "evt_test_…", data.object a sample of
// the resource, previous_attributes as a real change of that type would have them, created now. An
// unknown type is KindInvalid.
func SampleEvent(typ, teamID string, now time.Time) (Event, error) {
	if !slices.Contains(EventTypes, typ) {
		return Event{}, patio.Invalidf("unknown event type %q; known types: %s", typ, strings.Join(EventTypes, ", "))
	}
	before := patio.NewTimestamp(now.Add(-time.Hour))
	at := patio.NewTimestamp(now)
	id, _ := patio.NewID()
	str := func(s string) *string { return &s }
	year := func(y int) *int { return &y }
	var old, nu any
	resource := strings.SplitN(typ, ".", 2)[0]
	switch resource {
	case ResourceVehicle:
		v := patio.Vehicle{ID: id, TeamID: teamID, Title: "Toyota Corolla XEi 2024", Brand: "Toyota", Model: "Corolla",
			Version: str("XEi"), Plate: str("ABC1D23"), ManufactureYear: year(2023), ModelYear: year(2024), MileageKm: year(15200),
			Fuel: str("flex"), Price: money.Cents(11999050), Phase: "preparacao", Status: patio.VehicleActive,
			CreatedAt: before, UpdatedAt: before, Revision: 1}
		n := v
		n.UpdatedAt, n.Revision = at, 2
		switch typ {
		case VehicleUpdated:
			n.Color = str("prata")
		case VehiclePriceChanged:
			n.Price = money.Cents(11500000)
		case VehiclePhaseChanged:
			n.Phase = "disponivel"
		case VehicleSold:
			n.Status, n.SoldAt = patio.VehicleSold, &at
		case VehicleRemoved:
			n.Status = patio.VehicleArchived
		}
		old, nu = v, n
	case ResourceClient:
		c := patio.Client{ID: id, TeamID: teamID, Type: patio.ClientIndividual, Name: "Maria da Silva", CPF: str("52998224725"),
			Email: str("maria@example.com"), Status: patio.ClientActive, CreatedAt: before, UpdatedAt: before, Revision: 1}
		n := c
		n.UpdatedAt, n.Revision = at, 2
		switch typ {
		case ClientUpdated:
			n.Phone = str("11987654321")
		case ClientDeactivated:
			n.Status = patio.ClientInactive
		}
		old, nu = c, n
	case ResourceActivity:
		due := patio.NewTimestamp(now.Add(time.Hour))
		a := patio.Activity{ID: id, TeamID: teamID, Type: "call", Title: "Ligar para Maria", Status: patio.ActivityPending,
			DueAt: &due, CreatedAt: before, UpdatedAt: before, Revision: 1}
		n := a
		switch typ {
		case ActivityCompleted:
			n.Status, n.CompletedAt, n.UpdatedAt, n.Revision = patio.ActivityCompleted, &at, at, 2
		case ActivityDueSoon:
			n.DueSoonFired = n.DueAt // a timer's mark: no new revision
		case ActivityOverdue:
			a.DueSoonFired, n.DueSoonFired, n.OverdueFired = a.DueAt, n.DueAt, n.DueAt
		}
		old, nu = a, n
	case ResourceFinancial:
		f := patio.FinancialRecord{ID: id, TeamID: teamID, Type: "revenue", Category: "comissao", Description: "Comissão",
			Amount: money.Cents(150000), DueDate: patio.DateOf(now.Add(-48 * time.Hour)), Status: patio.FinancialPending,
			Zone: patio.DefaultTimeZone, CreatedAt: before, UpdatedAt: before, Revision: 1}
		n := f
		switch typ {
		case FinancialPaid:
			n.Status, n.PaidAt, n.PaymentMethod, n.UpdatedAt, n.Revision = patio.FinancialPaid, &at, str("pix"), at, 2
		case FinancialOverdue:
			n.OverdueFired = &n.DueDate // a timer's mark: no new revision
		}
		old, nu = f, n
	default:
		clientID, _ := patio.NewID()
		vehicleID, _ := patio.NewID() // a won deal always names its vehicle
		value := money.Cents(11999050)
		d := patio.Deal{ID: id, TeamID: teamID, Title: "Corolla for Maria", ClientID: clientID, VehicleID: &vehicleID, Value: &value,
			Phase: patio.DefaultDealPhase, Status: patio.DealOpen, CreatedAt: before, UpdatedAt: before, Revision: 1}
		n := d
		n.UpdatedAt, n.Revision = at, 2
		switch typ {
		case DealUpdated:
			n.Notes = str("test drive on Saturday")
		case DealPhaseChanged:
			n.Phase = "proposta"
		case DealWon:
			n.Status, n.ClosedAt, n.PaymentMethod = patio.DealWon, &at, str("pix")
		case DealLost:
			n.Status, n.ClosedAt, n.LostReason = patio.DealLost, &at, str("preco")
		}
		old, nu = d, n
	}
	c := Change{SourceID: "test", Resource: resource, TeamID: teamID, Old: old, New: nu, At: now}
	if strings.HasSuffix(typ, ".created") {
		c.Old = nil
		switch r := nu.(type) { // a creation's record is at its first revision
		case patio.Vehicle:
			r.UpdatedAt, r.CreatedAt, r.Revision = at, at, 1
			c.New = r
		case patio.Client:
			r.UpdatedAt, r.CreatedAt, r.Revision = at, at, 1
			c.New = r
		case patio.Deal:
			r.UpdatedAt, r.CreatedAt, r.Revision = at, at, 1
			c.New = r
		case patio.Activity:
			r.UpdatedAt, r.CreatedAt, r.Revision = at, at, 1
			c.New = r
		case patio.FinancialRecord:
			r.UpdatedAt, r.CreatedAt, r.Revision = at, at, 1
			c.New = r
		}
	}
	events, err := Derive(c)
	if err != nil {
		return Event{}, err
	}
	for _, e := range events {
		if e.Type == typ {
			var b [16]byte
			_, _ = rand.Read(b[:])
			e.ID = TestEventPrefix + hex.EncodeToString(b[:])
			return e, nil
		}
	}
	return Event{}, patio.Internal(errNoSample(typ))
}

type errNoSample string

func (e errNoSample) Error() string { return "webhook: no sample change gives " + string(e) }
