package dynamostore_test

import (
	"context"
	"testing"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// listedPrice returns the price the team's default list (creation order, from the order items)
// shows for vehicle id.
func listedPrice(t *testing.T, s *dynamostore.Store, team, id string) money.Cents {
	t.Helper()
	listed, err := s.Vehicles().List(context.Background(), team, mustCheck(t, patio.VehicleQuery{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range listed.Items {
		if v.ID == id {
			return v.Price
		}
	}
	t.Fatalf("List did not show vehicle %s", id)
	return 0
}

// An edit that leaves a vehicle where it is (its price) is a put of its row and then of its
// copies: the default list shows the new price as soon as the update returns, also when the
// answer to the row's put was lost and the SDK sent it again.
func TestAnUpdateInPlaceIsListedAtOnce(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	names := testenv.Tables(t)
	lossy := &testenv.LostAnswers{Next: cfg.HTTPClient, Operation: "PutItem"}
	cfg.HTTPClient = lossy
	s := dynamostore.New(cfg, dynamostore.Tables{Accounts: names["AccountsTable"], Vehicles: names["VehiclesTable"]})
	ctx := context.Background()
	team := newTeam()
	v := createVehicle(t, s, team, plated("INP1A23"))
	for i, price := range []money.Cents{5100000, 5200000} {
		lossy.Mu.Lock()
		lossy.N = i // the second update's row put has its answer lost once
		lossy.Mu.Unlock()
		got, err := s.Vehicles().Update(ctx, team, v.ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
			cur.Price = price
			return patio.Write[patio.Vehicle]{Record: cur, Changed: true}, nil
		})
		if err != nil || got.Revision != 2+i {
			t.Fatalf("Update #%d = revision %d, %v; want revision %d", i, got.Revision, err, 2+i)
		}
		if lossy.N != 0 {
			t.Fatalf("the answer to the row's put was not lost; the test proves nothing")
		}
		if p := listedPrice(t, s, team, v.ID); p != price {
			t.Errorf("after update #%d the list shows %d; want %d", i, p, price)
		}
	}
}

// A process stopped after an update's row and before its copies leaves the list behind the
// record; the indexer, following the row's change on the stream, writes the copies again.
func TestTheIndexerMendsCopiesAnUpdateLeftBehind(t *testing.T) {
	s := newStore(t)
	team := newTeam()
	v := createVehicle(t, s, team, plated("INP2B34"))
	next := v
	next.Revision++
	next.Price = 6100000
	dynamostore.PutRowOnly(t, s, next)
	if p := listedPrice(t, s, team, v.ID); p != v.Price {
		t.Fatalf("before the indexer the list shows %d; want the copy left behind, %d", p, v.Price)
	}
	caughtUp(t)
	if p := listedPrice(t, s, team, v.ID); p != next.Price {
		t.Errorf("after the indexer the list shows %d; want the row's %d", p, next.Price)
	}
}
