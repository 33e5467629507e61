package dynamostore_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestDealSums: the store keeps, per phase, how many open deals it holds and their value, moved
// by every create, phase or value change and status change; a team with a deal written before the
// sums were kept has none to give until the backfill adds it.
func TestDealSums(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	client := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
	deals := patio.NewDeals(s.Deals(), s.Vehicles())
	create := func(phase string, value money.Cents) patio.Deal {
		t.Helper()
		in := patio.DealInput{Title: patio.Some("Deal " + phase), ClientID: patio.Some(client.ID), Phase: patio.Some(phase)}
		if value != 0 {
			in.Value = patio.Some(value)
		}
		d, err := deals.Create(ctx, team, in)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sums := func(want map[string]patio.Sum) {
		t.Helper()
		got, ok, err := deals.Sums(ctx, team, "phase", string(patio.DealOpen))
		for k, v := range got {
			if v == (patio.Sum{}) {
				delete(got, k)
			}
		}
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Sums = %v, %v, %v; want %v", got, ok, err, want)
		}
	}
	lead := create("lead", 100000)
	create("lead", 50000)
	create("visita", 0)
	proposal := create("proposta", 200000)
	sums(map[string]patio.Sum{"lead": {Count: 2, Amount: 150000}, "visita": {Count: 1, Amount: 0}, "proposta": {Count: 1, Amount: 200000}})

	if _, err := deals.Update(ctx, team, lead.ID, patio.DealInput{Phase: patio.Some("visita"), Value: patio.Some(money.Cents(120000))}); err != nil {
		t.Fatal(err)
	}
	if _, err := deals.Update(ctx, team, proposal.ID, patio.DealInput{Status: patio.Some(string(patio.DealLost)), LostReason: patio.Some("preco")}); err != nil {
		t.Fatal(err)
	}
	sums(map[string]patio.Sum{"lead": {Count: 1, Amount: 50000}, "visita": {Count: 2, Amount: 120000}})

	// A deal of the previous format: counted, but not in the sums.
	id, now := patio.NewID()
	w, err := patio.NewDeal(ctx, team, id, now, patio.DealInput{Title: patio.Some("Old"), ClientID: patio.Some(client.ID),
		Phase: patio.Some("lead"), Value: patio.Some(money.Cents(7000))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Record.Revision = 1
	dynamostore.PutUnsummed(t, s, w.Record)
	if got, ok, err := deals.Sums(ctx, team, "phase", string(patio.DealOpen)); ok || err != nil {
		t.Errorf("Sums with a deal not in them = %v, %v, %v; want none (not ok)", got, ok, err)
	}
	if _, err := s.Backfill(ctx, false); err != nil {
		t.Fatal(err)
	}
	sums(map[string]patio.Sum{"lead": {Count: 2, Amount: 57000}, "visita": {Count: 2, Amount: 120000}})
}
