package dynamostore_test

import (
	"context"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// A write whose answer was lost after DynamoDB applied it is sent again by the SDK; the retry must
// answer the success the first attempt was, not fail its own "key is free" condition against the
// item it just wrote: a new team (a put), a vehicle and a webhook (transactions, the webhook's of
// one item), a form's one-time claim, while a genuine duplicate still fails.
func TestALostAnswerIsNotAFailure(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	names := testenv.Tables(t)
	lossy := &testenv.LostAnswers{Next: cfg.HTTPClient, Operation: "PutItem", N: 1}
	cfg.HTTPClient = lossy
	s := dynamostore.New(cfg, dynamostore.Tables{Accounts: names["AccountsTable"], Vehicles: names["VehiclesTable"],
		Webhooks: names["WebhooksTable"]})
	ctx := context.Background()

	team, err := patio.NewTeam("Loja", "dono@loja.example", "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatalf("CreateTeam with its answer lost once = %v; want the team created", err)
	}
	if lossy.N != 0 {
		t.Fatalf("the answer to CreateTeam's put was not lost; the test proves nothing")
	}
	if got, err := accountdb.NewAccounts(s.DB()).Team(ctx, team.ID); err != nil || got.Name != "Loja" {
		t.Errorf("Team = %+v, %v; want the team", got, err)
	}
	other := team
	other.Name = "Outra"
	if err := accountdb.NewAccounts(s.DB()).CreateTeam(ctx, other); err == nil {
		t.Errorf("CreateTeam of another team with a taken id = nil; want it refused")
	}

	lossy.Mu.Lock()
	lossy.Operation, lossy.N = "TransactWriteItems", 1
	lossy.Mu.Unlock()
	v, err := patio.NewVehicles(s.Vehicles()).Create(ctx, team.ID, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"),
		Plate: patio.Some("LST1A23"), Price: patio.Some(money.Cents(4500000))})
	if err != nil {
		t.Fatalf("Create a vehicle with its transaction's answer lost once = %v; want it created", err)
	}
	if lossy.N != 0 {
		t.Fatalf("the answer to the vehicle's transaction was not lost; the test proves nothing")
	}
	listed, err := s.Vehicles().List(ctx, team.ID, mustCheck(t, patio.VehicleQuery{}))
	if err != nil || listed.Total != 1 || len(listed.Items) != 1 || listed.Items[0].ID != v.ID {
		t.Errorf("List = %d %v, %v; want the one vehicle, counted once", listed.Total, len(listed.Items), err)
	}

	lossy.Mu.Lock()
	lossy.N = 1
	lossy.Mu.Unlock()
	w, err := webhook.New(team.ID, "https://hooks.example.com/lost", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := webhookdb.New(s.DB()).CreateWebhook(ctx, w); err != nil {
		t.Fatalf("CreateWebhook with its answer lost once = %v; want it created", err)
	}
	if lossy.N != 0 {
		t.Fatalf("the answer to the webhook's write was not lost; the test proves nothing")
	}

	lossy.Mu.Lock()
	lossy.Operation, lossy.N = "PutItem", 1
	lossy.Mu.Unlock()
	form, now := "form-"+team.ID, time.Now()
	if first, _, err := accountdb.NewSessions(s.DB()).ClaimForm(ctx, form, now, now.Add(time.Hour)); err != nil || !first {
		t.Errorf("ClaimForm with its answer lost once = %v, %v; want the first post's claim", first, err)
	}
	if lossy.N != 0 {
		t.Fatalf("the answer to the form's claim was not lost; the test proves nothing")
	}
	if first, _, err := accountdb.NewSessions(s.DB()).ClaimForm(ctx, form, now, now.Add(time.Hour)); err != nil || first {
		t.Errorf("ClaimForm of the same form again = %v, %v; want a repeat", first, err)
	}
}

// mustCheck returns a checked vehicle query.
func mustCheck(t *testing.T, q patio.VehicleQuery) patio.VehicleQuery {
	t.Helper()
	q, err := q.Check()
	if err != nil {
		t.Fatal(err)
	}
	return q
}
