package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/webhooksig"
)

// testReceiver is an HTTPS receiver that checks signatures with the secret it is given and answers
// 202 with a small body.
type testReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	events []map[string]any
	bad    []string
}

func newTestReceiver(t *testing.T) *testReceiver {
	r := &testReceiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := webhooksig.Verify(r.secret, req.Header, body, time.Now()); err != nil {
			r.bad = append(r.bad, err.Error())
		}
		if err := webhooksig.VerifyStandard(r.secret, req.Header, body, time.Now()); err != nil {
			r.bad = append(r.bad, err.Error())
		}
		var ev map[string]any
		_ = json.Unmarshal(body, &ev)
		r.events = append(r.events, ev)
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// ownDeliverer runs the deliverer on a queue of its own, which it points the tool at (so that no
// other test's task reaches it), trusting the receivers' certificate. It stops with the test.
func ownDeliverer(t *testing.T) {
	t.Helper()
	_, _ = deliveryQueue(t) // skips without moto
	cfg := testenv.AWSConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	q, err := sqs.NewFromConfig(cfg).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("admin-test-" + uuid.NewString()[:8])})
	if err != nil {
		t.Fatal(err)
	}
	url := aws.ToString(q.QueueUrl)
	t.Setenv("DELIVERY_QUEUE_URL", url)
	probe := httptest.NewTLSServer(http.NotFoundHandler())
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	err = os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: probe.Certificate().Raw}), 0o600)
	probe.Close()
	if err != nil {
		t.Fatal(err)
	}
	knobs := map[string]string{"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_CA_FILE": caFile, "ALERT_SENDER_EMAIL": "alerts@example.com"}
	c, err := app.LoadConfig(func(name string) (string, bool) {
		if v, ok := knobs[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}, app.DelivererFunction)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	h, err := workers.Deliverer(cfg, c, logger)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = localaws.PollQueue(ctx, cfg, url, h, logger, 0); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestWebhooksTestUpdateDelete: webhooks test sends a signed sample through the normal delivery
// path and prints the attempt; webhooks update changes URL and events (the URL rules checked
// again); webhooks delete is final: the webhook receives nothing more and cannot be enabled again.
func TestWebhooksTestUpdateDelete(t *testing.T) {
	store := setup(t)
	ctx := context.Background()
	ownDeliverer(t)
	team := newTeam(t)
	recv := newTestReceiver(t)
	w, err := webhook.New(team, recv.srv.URL+"/in", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := webhookdb.New(store.DB()).CreateWebhook(ctx, w); err != nil { // stored directly: the tool refuses private targets
		t.Fatal(err)
	}
	recv.mu.Lock()
	recv.secret = w.Secret
	recv.mu.Unlock()

	for _, typ := range []string{"", webhook.DealWon} {
		args := []string{"webhooks", "test", "--id", w.ID}
		want := webhook.VehicleCreated
		if typ != "" {
			args, want = append(args, "--type", typ), typ
		}
		got, raw := adminOK[struct {
			DeliveryID   string `json:"delivery_id"`
			EventID      string `json:"event_id"`
			EventType    string `json:"event_type"`
			Status       string `json:"status"`
			StatusCode   int    `json:"status_code"`
			DurationMs   *int64 `json:"duration_ms"`
			ResponseBody string `json:"response_body"`
		}](t, args...)
		if got.EventType != want || !strings.HasPrefix(got.EventID, webhook.TestEventPrefix) || got.Status != webhook.DeliverySucceeded ||
			got.StatusCode != http.StatusAccepted || got.DurationMs == nil || got.ResponseBody != `{"ok":true}` {
			t.Errorf("admin %s printed %s; want a succeeded %s (evt_test_…), 202, its duration and the response", strings.Join(args, " "), raw, want)
		}
		recv.mu.Lock()
		last := recv.events[len(recv.events)-1]
		recv.mu.Unlock()
		data, _ := last["data"].(map[string]any)
		obj, _ := data["object"].(map[string]any)
		if last["id"] != got.EventID || last["type"] != want || last["webhook_id"] != w.ID || obj == nil || obj["id"] == nil {
			t.Errorf("the receiver got %v; want the %s sample %s with its object", last, want, got.EventID)
		}
		if d := deliveriesList(t, "--webhook", w.ID, "--limit", "100"); !containsDelivery(d, got.DeliveryID) {
			t.Errorf("deliveries list does not show the test delivery %s", got.DeliveryID)
		}
	}
	recv.mu.Lock()
	if len(recv.bad) > 0 {
		t.Errorf("the receiver refused signatures: %v", recv.bad)
	}
	recv.mu.Unlock()
	wantError(t, []string{"webhooks", "test"}, adminFails(t, "webhooks", "test", "--id", w.ID, "--type", "vehicle.flown"), `unknown event type "vehicle.flown"`)

	// update: events, then a URL checked again.
	u, _ := adminOK[webhookJSON](t, "webhooks", "update", "--id", w.ID, "--events", "vehicle.created,deal.won")
	if strings.Join(u.Events, ",") != "vehicle.created,deal.won" || u.URL != w.URL {
		t.Errorf("webhooks update --events printed %+v; want the new events and the same URL", u)
	}
	u, _ = adminOK[webhookJSON](t, "webhooks", "update", "--id", w.ID, "--url", publicURL)
	if u.URL != publicURL || strings.Join(u.Events, ",") != "vehicle.created,deal.won" {
		t.Errorf("webhooks update --url printed %+v; want the new URL and the same events", u)
	}
	for _, bad := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--url", "http://93.184.215.14/in"}, "url must use https"},
		{[]string{"--url", "https://127.0.0.1/in"}, "non-public"},
		{[]string{"--events", "deal.signed"}, `unknown event type "deal.signed"`},
		{[]string{"--max-rate", "0"}, "max_rate must be between 1 and 1000 requests per second, or none"},
		{[]string{"--max-rate", "1001"}, "max_rate must be between 1 and 1000 requests per second, or none"},
		{[]string{"--max-rate", "fast"}, "max_rate must be between 1 and 1000 requests per second, or none"},
		{nil, "give --url, --events, --max-rate, --description or several"},
	} {
		args := append([]string{"webhooks", "update", "--id", w.ID}, bad.args...)
		wantError(t, args, adminFails(t, args...), bad.wantErr)
	}

	// max_rate: none when created, set and cleared by update, shown by get.
	if u.MaxRate != nil {
		t.Errorf("a webhook created without --max-rate has max_rate %d; want null", *u.MaxRate)
	}
	u, _ = adminOK[webhookJSON](t, "webhooks", "update", "--id", w.ID, "--max-rate", "25")
	if u.MaxRate == nil || *u.MaxRate != 25 || u.URL != publicURL {
		t.Errorf("webhooks update --max-rate 25 printed %+v; want max_rate 25 and the same URL", u)
	}
	if g, _ := adminOK[webhookJSON](t, "webhooks", "get", "--id", w.ID); g.MaxRate == nil || *g.MaxRate != 25 {
		t.Errorf("webhooks get after --max-rate 25 printed max_rate %v; want 25", g.MaxRate)
	}
	if u, _ = adminOK[webhookJSON](t, "webhooks", "update", "--id", w.ID, "--max-rate", "none"); u.MaxRate != nil {
		t.Errorf("webhooks update --max-rate none printed max_rate %d; want null", *u.MaxRate)
	}

	// delete: final, hidden from the list unless asked, its pending deliveries cancelled.
	ev := "evt_pending_" + w.ID[:8]
	pendingID := webhook.DeliveryID(ev, w.ID)
	now := time.Now().UTC()
	if _, _, _, err := webhookdb.New(store.DB()).CreateDeliveries(ctx, []webhook.Delivery{{ID: pendingID, WebhookID: w.ID, TeamID: team, EventID: ev,
		EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending, Payload: []byte(`{}`), CreatedAt: now, UpdatedAt: now}}); err != nil {
		t.Fatal(err)
	}
	del, _ := adminOK[webhookJSON](t, "webhooks", "delete", "--id", w.ID)
	if del.Status != webhook.StatusDeleted {
		t.Errorf("webhooks delete printed status %s; want deleted", del.Status)
	}
	if got := deliveriesList(t, "--webhook", w.ID, "--status", "cancelled"); !containsDelivery(got, pendingID) {
		t.Errorf("after delete, the pending delivery is not cancelled: %+v", got)
	}
	list, _ := adminOK[struct{ Webhooks []webhookJSON }](t, "webhooks", "list", "--team", team)
	all, _ := adminOK[struct{ Webhooks []webhookJSON }](t, "webhooks", "list", "--team", team, "--all")
	if len(list.Webhooks) != 0 || len(all.Webhooks) != 1 || all.Webhooks[0].Status != webhook.StatusDeleted {
		t.Errorf("webhooks list = %+v, --all = %+v; want none, then the deleted one", list.Webhooks, all.Webhooks)
	}
	for _, args := range [][]string{
		{"webhooks", "enable", "--id", w.ID},
		{"webhooks", "disable", "--id", w.ID},
		{"webhooks", "update", "--id", w.ID, "--events", "*"},
		{"webhooks", "rotate-secret", "--id", w.ID},
		{"deliveries", "replay", "--webhook", w.ID, "--status", "cancelled"},
		{"deliveries", "replay", "--id", pendingID},
	} {
		wantError(t, args, adminFails(t, args...), "deleted")
	}
	wantError(t, nil, adminFails(t, "webhooks", "test", "--id", w.ID), "is deleted; only an active webhook can be tested")
	if again, _ := adminOK[webhookJSON](t, "webhooks", "delete", "--id", w.ID); again.Status != webhook.StatusDeleted {
		t.Errorf("deleting a deleted webhook printed %+v; want it deleted still", again)
	}
}

func containsDelivery(ds []deliveryJSON, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}
