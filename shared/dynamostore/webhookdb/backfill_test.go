package webhookdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
)

// A webhook stored in the first rotation format (the new secret in next_secret, the old one still
// in secret) reads as the current format does, and the backfill rewrites it so: the new secret
// current, the old one signing until the end of its grace period, no webhook event, nothing left.
func TestBackfillRewritesFirstRotationFormat(t *testing.T) {
	db := storecore.New(testenv.AWSConfig(t), storecore.Tables{Webhooks: testenv.Tables(t)["WebhooksTable"]})
	ctx := context.Background()
	hooks := webhookdb.New(db)
	backfill := func(check bool) ([]migration.Report, error) {
		return migration.Backfill(ctx, db.Dynamo, []migration.Table{webhookdb.Migration(db)}, check)
	}
	w := newHook(t, hooks)
	oldSecret, newSecret := w.Secret, "whsec_"+strings.Repeat("n", 32)
	until := patio.Timestamp(time.Now().Add(time.Hour).UTC().Truncate(time.Second))
	webhookdb.PutFirstRotation(t, hooks.Webhooks, w, newSecret, until)

	want := func(when string) {
		t.Helper()
		got, err := hooks.Webhook(ctx, w.TeamID, w.ID)
		if err != nil {
			t.Fatalf("%s: Webhook = %v", when, err)
		}
		if got.Secret != newSecret || len(got.Previous) != 1 || got.Previous[0].Secret != oldSecret ||
			!time.Time(got.Previous[0].Until).Equal(time.Time(until)) || got.Revision != w.Revision {
			t.Errorf("%s: secret %q, previous %+v, revision %d; want the new secret, the old one until %v, revision %d",
				when, got.Secret, got.Previous, got.Revision, until, w.Revision)
		}
	}
	want("before the backfill")
	checked, err := backfill(true)
	if err != nil || webhookReport(checked).Scanned != 1 {
		t.Fatalf("Backfill(check) = %+v, %v; want the webhook found", checked, err)
	}
	reports, err := backfill(false)
	if err != nil || webhookReport(reports).Migrated != 1 {
		t.Fatalf("Backfill = %+v, %v; want the webhook migrated", reports, err)
	}
	want("after the backfill")
	item, err := webhookdb.WebhookItem(ctx, hooks.Webhooks, w.TeamID, w.ID)
	if err != nil || item["next_secret"] != nil || item["rotates_at"] != nil {
		t.Errorf("stored webhook = %v, %v; want no next_secret or rotates_at", item, err)
	}
	if again, err := backfill(true); err != nil || webhookReport(again).Scanned != 0 {
		t.Errorf("Backfill(check) after the backfill = %+v, %v; want nothing left", again, err)
	}
}

// webhookReport returns the webhooks table's report.
func webhookReport(reports []migration.Report) migration.Report {
	for _, r := range reports {
		if strings.Contains(strings.ToLower(r.Table), "webhook") {
			return r
		}
	}
	return migration.Report{}
}
