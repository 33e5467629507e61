package webhookdb_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// webhookStore returns a store on the package's webhook tables.
func webhookStore(t *testing.T) webhookdb.Store {
	t.Helper()
	names := testenv.Tables(t)
	return webhookdb.New(storecore.New(testenv.AWSConfig(t), storecore.Tables{Webhooks: names["WebhooksTable"], Deliveries: names["DeliveriesTable"]}))
}

// newTeam returns the id of a team no other test uses.
func newTeam() string {
	id, _ := patio.NewID()
	return id
}

// newHook stores an active webhook of a new team.
func newHook(t *testing.T, s interface {
	CreateWebhook(context.Context, webhook.Webhook) error
}) webhook.Webhook {
	t.Helper()
	w, err := webhook.New(newTeam(), "https://hooks.example.com/x", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateWebhook(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// sentAt reports whether an attempt's stored headers are those it sent: its timestamp and the
// event's id.
func sentAt(a webhook.Attempt) bool {
	return a.Headers[webhook.HeaderSWTimestamp] == strconv.FormatInt(a.At.Unix(), 10) &&
		a.Headers[webhook.HeaderSWID] == "evt_bounded" && strings.HasPrefix(a.Headers[webhook.HeaderSWSignature], "v1,")
}

// TestAttemptsStayBounded: however many series a delivery goes through (replays), its item keeps
// the attempts of the current series only (with their response excerpts and sent headers), while
// the attempt log keeps every attempt with its response excerpt and headers; the lists carry
// neither.
func TestAttemptsStayBounded(t *testing.T) {
	s := webhookStore(t)
	ctx := context.Background()
	w := newHook(t, s)
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	d := webhook.Delivery{ID: webhook.DeliveryID("evt_bounded", w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: "evt_bounded",
		EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending, Payload: []byte(`{}`), CreatedAt: t0, UpdatedAt: t0}
	if _, _, _, err := s.CreateDeliveries(ctx, []webhook.Delivery{d}); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", webhook.MaxResponseBody)
	const series = 3
	for sr := range series {
		for n := 1; n <= webhook.MaxAttempts; n++ {
			tok := fmt.Sprintf("tok-%d-%d", sr, n)
			cur, ok, err := s.ClaimDelivery(ctx, d.ID, sr, n, tok, time.Now(), time.Now().Add(time.Minute))
			if err != nil || !ok {
				t.Fatalf("ClaimDelivery(series %d, attempt %d) = %v, %v; want it claimed", sr, n, ok, err)
			}
			at := t0.Add(time.Duration(sr*10+n) * time.Second)
			a := webhook.Attempt{Series: sr, N: n, At: at, StatusCode: 500, DurationMs: 12, ErrorClass: webhook.ErrHTTPStatus,
				ResponseBody: body, Headers: webhook.Headers(d.EventID, d.Payload, webhook.Keys{w.Secret}, at)}
			status := webhook.DeliveryPending
			if n == webhook.MaxAttempts {
				status = webhook.DeliveryFailed
			} else {
				next := at.Add(time.Second)
				a.NextAttemptAt = &next
			}
			errs := s.RecordAttempts(ctx, []delivery.Record{{Delivery: cur, Attempt: a, Status: status, Token: tok}}, time.Now())
			if errs[0] != nil {
				t.Fatalf("RecordAttempts(series %d, attempt %d) = %v", sr, n, errs[0])
			}
		}
		if sr < series-1 {
			if _, err := s.SetDeliveryStatus(ctx, d.ID, []string{webhook.DeliveryFailed}, webhook.DeliveryPending, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := s.Delivery(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Series != series-1 || len(got.Attempts) != webhook.MaxAttempts {
		t.Fatalf("after %d series the delivery holds series %d with %d attempts; want the last series' %d", series, got.Series,
			len(got.Attempts), webhook.MaxAttempts)
	}
	for _, a := range got.Attempts {
		if a.Series != series-1 || a.ResponseBody != body || !sentAt(a) {
			t.Errorf("the delivery item holds attempt %d.%d with %d body bytes; want only the current series, with its bodies",
				a.Series, a.N, len(a.ResponseBody))
		}
	}
	// The lists read an index that carries neither the payload nor the bodies.
	listed, err := s.Deliveries(ctx, w.ID, "")
	if err != nil || len(listed) != 1 {
		t.Fatalf("Deliveries(%s) = %d, %v; want the delivery", w.ID, len(listed), err)
	}
	if l := listed[0]; len(l.Payload) != 0 || len(l.Attempts) != webhook.MaxAttempts || l.Attempts[0].ResponseBody != "" || l.Attempts[0].Headers != nil {
		t.Errorf("the listed delivery has %d payload bytes, %d attempts, %d body bytes; want 0, %d, 0",
			len(l.Payload), len(l.Attempts), len(l.Attempts[0].ResponseBody), webhook.MaxAttempts)
	}
	log, err := s.AttemptLog(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != series*webhook.MaxAttempts {
		t.Fatalf("AttemptLog = %d attempts; want %d", len(log), series*webhook.MaxAttempts)
	}
	for i, a := range log {
		if a.Series != i/webhook.MaxAttempts || a.N != i%webhook.MaxAttempts+1 || a.ResponseBody != body || a.StatusCode != 500 ||
			a.DurationMs != 12 || a.ErrorClass != webhook.ErrHTTPStatus || !sentAt(a) {
			t.Errorf("log[%d] = %d.%d status %d %s %d ms, %d body bytes; want %d.%d, 500, http_status, 12 ms, 4096 bytes",
				i, a.Series, a.N, a.StatusCode, a.ErrorClass, a.DurationMs, len(a.ResponseBody), i/webhook.MaxAttempts, i%webhook.MaxAttempts+1)
		}
	}
	// A claim by another token blocks until it runs out; the recorded attempt ends it.
	if _, ok, _ := s.ClaimDelivery(ctx, d.ID, series-1, 1, "late", time.Now(), time.Now().Add(time.Minute)); ok {
		t.Errorf("ClaimDelivery of a failed delivery succeeded")
	}
}

// TestListDeliveries pages through a webhook's deliveries, newest first, filtered by statuses and
// a creation window, each page reading at most limit+1 items per status.
func TestListDeliveries(t *testing.T) {
	s := webhookStore(t)
	ctx := context.Background()
	w := newHook(t, s)
	// Not a fixed day: a delivery whose last change is older than the retention is deleted by the
	// table's TTL, which DynamoDB Local applies every few seconds.
	t0 := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	statuses := []string{webhook.DeliveryFailed, webhook.DeliveryCancelled, webhook.DeliverySkipped, webhook.DeliverySucceeded}
	var all []webhook.Delivery
	for i := range 20 {
		at := t0.Add(time.Duration(i/2) * time.Minute) // two deliveries per minute: ties broken by id
		ev := fmt.Sprintf("evt_list_%02d", i)
		d := webhook.Delivery{ID: webhook.DeliveryID(ev, w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: ev,
			EventType: webhook.VehicleCreated, Status: statuses[i%len(statuses)], Payload: []byte(`{}`), CreatedAt: at, UpdatedAt: at}
		all = append(all, d)
	}
	if _, _, _, err := s.CreateDeliveries(ctx, all); err != nil {
		t.Fatal(err)
	}
	ids := func(ds []webhook.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	want := func(f func(webhook.Delivery) bool) []string {
		var out []webhook.Delivery
		for _, d := range all {
			if f(d) {
				out = append(out, d)
			}
		}
		slices.SortFunc(out, func(a, b webhook.Delivery) int {
			if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
		return ids(out)
	}
	tests := []struct {
		name string
		q    webhook.DeliveryQuery
		keep func(webhook.Delivery) bool
	}{
		{name: "all", q: webhook.DeliveryQuery{}, keep: func(webhook.Delivery) bool { return true }},
		{name: "two statuses", q: webhook.DeliveryQuery{Statuses: []string{webhook.DeliveryFailed, webhook.DeliverySkipped}},
			keep: func(d webhook.Delivery) bool {
				return d.Status == webhook.DeliveryFailed || d.Status == webhook.DeliverySkipped
			}},
		{name: "window", q: webhook.DeliveryQuery{Since: t0.Add(2 * time.Minute), Until: t0.Add(6 * time.Minute)},
			keep: func(d webhook.Delivery) bool {
				return !d.CreatedAt.Before(t0.Add(2*time.Minute)) && !d.CreatedAt.After(t0.Add(6*time.Minute))
			}},
		{name: "status and since", q: webhook.DeliveryQuery{Statuses: []string{webhook.DeliveryCancelled}, Since: t0.Add(5 * time.Minute)},
			keep: func(d webhook.Delivery) bool {
				return d.Status == webhook.DeliveryCancelled && !d.CreatedAt.Before(t0.Add(5*time.Minute))
			}},
	}
	for _, tt := range tests {
		for _, limit := range []int{3, 7, 100} {
			t.Run(fmt.Sprintf("%s, pages of %d", tt.name, limit), func(t *testing.T) {
				q := tt.q
				q.Limit = limit
				q, err := q.Check()
				if err != nil {
					t.Fatal(err)
				}
				var got []webhook.Delivery
				for pages := 0; ; pages++ {
					page, next, err := s.ListDeliveries(ctx, []string{w.ID}, q)
					if err != nil {
						t.Fatal(err)
					}
					if len(page) > limit || pages > 20 {
						t.Fatalf("page %d has %d deliveries (limit %d)", pages, len(page), limit)
					}
					got = append(got, page...)
					if next == "" {
						break
					}
					q.Cursor = next
				}
				if w := want(tt.keep); !slices.Equal(ids(got), w) {
					t.Errorf("pages = %v; want %v", ids(got), w)
				}
			})
		}
	}
	q, _ := webhook.DeliveryQuery{Cursor: "not-a-cursor"}.Check()
	if _, _, err := s.ListDeliveries(ctx, []string{w.ID}, q); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("ListDeliveries(bad cursor) = %v; want KindInvalid", err)
	}
}

// TestWaitingDeliveryKept: a pending delivery is kept however long it waits for its attempt: a
// park (its webhook slow, or holding it back) and the sweep's queueing it again start its retention
// again, so that the table's TTL, which takes an item once its expires_at has passed, never takes
// one still to be attempted. (When DynamoDB's TTL pass comes is DynamoDB's; what the store decides
// is the expiry it writes.)
func TestWaitingDeliveryKept(t *testing.T) {
	s := webhookStore(t)
	ctx := context.Background()
	w := newHook(t, s)
	start := time.Now()
	old := start.UTC().Add(-webhook.Retention - time.Hour).Truncate(time.Millisecond)
	var ds []webhook.Delivery
	for _, name := range []string{"parked", "swept", "idle"} {
		ev := "evt_kept_" + name
		ds = append(ds, webhook.Delivery{ID: webhook.DeliveryID(ev, w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: ev,
			EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending, Payload: []byte(`{}`), CreatedAt: old, UpdatedAt: old})
	}
	if _, _, _, err := s.CreateDeliveries(ctx, ds); err != nil {
		t.Fatal(err)
	}
	parked, swept, idle := ds[0], ds[1], ds[2]
	due := start.Add(2 * time.Hour)
	if err := s.ParkDelivery(ctx, parked.ID, 0, 1, "tok", due, webhook.HeldBound); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.MarkSwept(ctx, swept, time.Now()); err != nil || !ok {
		t.Fatalf("MarkSwept = %v, %v; want true", ok, err)
	}
	for _, tt := range []struct {
		d    webhook.Delivery
		from time.Time // the expiry is the retention after this, at least
	}{{parked, due}, {swept, start}} {
		exp, err := webhookdb.DeliveryExpiry(ctx, s.DeliveryLog, tt.d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := tt.from.Add(webhook.Retention).Truncate(time.Second); exp.Before(want) {
			t.Errorf("the %s delivery expires at %s; want %s or later (the retention after %s)", tt.d.EventID, exp, want, tt.from)
		}
	}
	// The control: a delivery left alone since more than the retention ago has expired.
	if exp, err := webhookdb.DeliveryExpiry(ctx, s.DeliveryLog, idle.ID); err != nil || !exp.Before(start) {
		t.Errorf("the idle delivery expires at %s, %v; want before now (its last change is older than the retention)", exp, err)
	}
}
