package patio_test

import (
	"slices"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestChangeAudit: a change read from outside the use cases (the dispatcher's stream) is named as
// the use cases name it: a creation with the fields it set, an edit with the fields it changed, a
// status change by its verb, and no entry for a write that changed nothing.
func TestChangeAudit(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	v, err := patio.NewVehicle("team-1", "0193a0f2-0000-7000-8000-000000000001", at, patio.VehicleInput{
		Brand: patio.Some("Fiat"), Model: patio.Some("Argo"), Price: patio.Some(money.Cents(7999000))})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := patio.ChangeAudit("team-1", patio.ResourceVehicle, nil, v)
	if !ok || e.Action != "vehicle.create" || e.Target != "vehicle:"+v.ID || !slices.Contains(e.Fields, "brand") ||
		slices.Contains(e.Fields, "id") || !e.At.Time().Equal(at) || e.TeamID != "team-1" {
		t.Errorf("creation = %+v, %v; want vehicle.create of its set fields at its updated_at", e, ok)
	}

	later := at.Add(time.Minute)
	priced, err := v.Apply(patio.VehicleInput{Price: patio.Some(money.Cents(7500000))}, later)
	if err != nil {
		t.Fatal(err)
	}
	priced.UpdatedAt = patio.NewTimestamp(later)
	if e, ok := patio.ChangeAudit("team-1", patio.ResourceVehicle, v, priced); !ok || e.Action != "vehicle.update" ||
		!slices.Equal(e.Fields, []string{"price"}) || !e.At.Time().Equal(later) {
		t.Errorf("price edit = %+v, %v; want vehicle.update of [price] at the new updated_at", e, ok)
	}

	sold := priced
	sold.Status = patio.VehicleSold
	if e, ok := patio.ChangeAudit("team-1", patio.ResourceVehicle, priced, sold); !ok || e.Action != "vehicle.sell" {
		t.Errorf("status to vendido = %+v, %v; want vehicle.sell", e, ok)
	}

	touched := priced
	touched.Revision++
	touched.UpdatedAt = patio.NewTimestamp(later.Add(time.Minute))
	if e, ok := patio.ChangeAudit("team-1", patio.ResourceVehicle, priced, touched); ok {
		t.Errorf("a write that changed no field = %+v; want no entry", e)
	}
}

// TestKeyActor: an API key acts under its name and hint; a key without a hint, under its id's
// start.
func TestKeyActor(t *testing.T) {
	if a := patio.KeyActor(patio.APIKey{ID: "0193a0f2-aaaa", Name: "Marketplace", Hint: "dk_live_AbCd"}, "req-1"); a.Kind != patio.ActorKey ||
		a.ID != "Marketplace (dk_live_AbCd)" || a.RequestID != "req-1" {
		t.Errorf("KeyActor = %+v", a)
	}
	if a := patio.KeyActor(patio.APIKey{ID: "0193a0f2-aaaa", Name: "ERP"}, ""); a.ID != "ERP (0193a0f2)" {
		t.Errorf("KeyActor without a hint = %+v", a)
	}
}
