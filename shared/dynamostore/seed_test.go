package dynamostore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/patio-dev/patio/dev/storeseed"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// Seeded records read back as the store's own writes leave them: each record, its list page with
// a facet filter, its count from the maintained counts, and its plate taken.
func TestSeedReadsBackAsCreated(t *testing.T) {
	s, ctx, team := newStore(t), context.Background(), newTeam()
	var vs []patio.Vehicle
	for i := range 30 {
		brand := "Fiat"
		if i%3 == 0 {
			brand = "Toyota"
		}
		vs = append(vs, newVehicle(t, team, patio.VehicleInput{Brand: patio.Some(brand), Plate: patio.Some(fmt.Sprintf("SED%04d", i))}))
	}
	if err := storeseed.Seed(ctx, s.DB(), vs); err != nil {
		t.Fatalf("Seed = %v; want nil", err)
	}
	if got, err := s.Vehicles().Get(ctx, team, vs[7].ID); err != nil || got.Revision != 1 || got.Plate == nil || *got.Plate != "SED0007" {
		t.Errorf("Get = %+v, %v; want the seeded vehicle at revision 1", got, err)
	}
	q, err := patio.VehicleQuery{Brand: ptr("Toyota")}.Check()
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.Vehicles().List(ctx, team, q)
	if err != nil || len(page.Items) != 10 || page.Total != 10 {
		t.Errorf("List brand=Toyota = %d items, total %d, %v; want 10 and 10", len(page.Items), page.Total, err)
	}
	counts, indexed, err := dynamostore.VehicleCounts(ctx, s, team)
	if err != nil || counts[string(patio.VehicleActive)] != 30 || indexed != 30 {
		t.Errorf("VehicleCounts = %v, %v, %v; want 30 ativo, 30 indexed", counts, indexed, err)
	}
	dup := newVehicle(t, team, patio.VehicleInput{Plate: patio.Some("SED0007")})
	if _, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: dup}); err == nil {
		t.Errorf("Create with a seeded plate = nil; want the plate taken")
	}
}
