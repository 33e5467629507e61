package webhook

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhooksig"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func vehicle() patio.Vehicle {
	ts := patio.NewTimestamp(t0)
	return patio.Vehicle{ID: "0190-v", TeamID: "team", Title: "Toyota Corolla", Brand: "Toyota", Model: "Corolla",
		Price: money.Cents(11999050), Phase: "preparacao", Status: patio.VehicleActive, CreatedAt: ts, UpdatedAt: ts}
}

func types(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestDerive(t *testing.T) {
	later := patio.NewTimestamp(t0.Add(time.Minute))
	v := vehicle()
	with := func(f func(*patio.Vehicle)) patio.Vehicle {
		n := v
		f(&n)
		n.UpdatedAt = later
		n.Revision++
		return n
	}
	client := patio.Client{ID: "c1", Type: patio.ClientIndividual, Name: "Ana", Status: patio.ClientActive}
	deal := patio.Deal{ID: "d1", Title: "Corolla", ClientID: "c1", Phase: "lead", Status: patio.DealOpen}
	dealWith := func(f func(*patio.Deal)) patio.Deal { n := deal; f(&n); return n }
	clientWith := func(f func(*patio.Client)) patio.Client { n := client; f(&n); return n }

	tests := []struct {
		name     string
		resource string
		old, new any
		want     []string
		prev     []string // previous_attributes keys of the first event
	}{
		{name: "vehicle insert", resource: ResourceVehicle, new: v, want: []string{VehicleCreated}},
		{name: "client insert", resource: ResourceClient, new: client, want: []string{ClientCreated}},
		{name: "deal insert", resource: ResourceDeal, new: deal, want: []string{DealCreated}},
		{name: "only updated_at and rev", resource: ResourceVehicle, old: v, new: with(func(*patio.Vehicle) {})},
		{name: "nothing", resource: ResourceVehicle, old: v, new: v},
		{name: "removal", resource: ResourceVehicle, old: v},
		{name: "photo added", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) {
			n.Photos = patio.PhotoList{{ID: "p1", Position: 1, Status: patio.PhotoProcessing}}
		}), want: []string{VehicleUpdated}, prev: []string{"photos", "revision", "updated_at"}},
		{name: "data change", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Title = "X" }),
			want: []string{VehicleUpdated}, prev: []string{"revision", "title", "updated_at"}},
		{name: "price", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Price = 1 }),
			want: []string{VehicleUpdated, VehiclePriceChanged}, prev: []string{"price", "revision", "updated_at"}},
		{name: "phase", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Phase = "disponivel" }),
			want: []string{VehicleUpdated, VehiclePhaseChanged}, prev: []string{"phase", "revision", "updated_at"}},
		{name: "price and phase", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Phase = "disponivel"; n.Price = 2 }),
			want: []string{VehicleUpdated, VehiclePriceChanged, VehiclePhaseChanged}, prev: []string{"phase", "price", "revision", "updated_at"}},
		{name: "sold", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) {
			n.Status = patio.VehicleSold
			n.SoldAt = &later
		}), want: []string{VehicleUpdated, VehicleSold}, prev: []string{"revision", "sold_at", "status", "updated_at"}},
		{name: "archived", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Status = patio.VehicleArchived }),
			want: []string{VehicleUpdated, VehicleRemoved}, prev: []string{"revision", "status", "updated_at"}},
		{name: "reserved: update only", resource: ResourceVehicle, old: v, new: with(func(n *patio.Vehicle) { n.Status = patio.VehicleReserved }),
			want: []string{VehicleUpdated}, prev: []string{"revision", "status", "updated_at"}},
		{name: "deal phase", resource: ResourceDeal, old: deal, new: dealWith(func(n *patio.Deal) { n.Phase = "visita" }),
			want: []string{DealUpdated, DealPhaseChanged}, prev: []string{"phase"}},
		{name: "deal won", resource: ResourceDeal, old: deal, new: dealWith(func(n *patio.Deal) { n.Status = patio.DealWon }),
			want: []string{DealUpdated, DealWon}, prev: []string{"status"}},
		{name: "deal lost", resource: ResourceDeal, old: deal, new: dealWith(func(n *patio.Deal) { n.Status = patio.DealLost }),
			want: []string{DealUpdated, DealLost}, prev: []string{"status"}},
		{name: "client data", resource: ResourceClient, old: client, new: clientWith(func(n *patio.Client) { n.Name = "Bia" }),
			want: []string{ClientUpdated}, prev: []string{"name"}},
		{name: "client deactivated", resource: ResourceClient, old: client, new: clientWith(func(n *patio.Client) { n.Status = patio.ClientInactive }),
			want: []string{ClientUpdated, ClientDeactivated}, prev: []string{"status"}},
		{name: "client reactivated", resource: ResourceClient, old: clientWith(func(n *patio.Client) { n.Status = patio.ClientInactive }), new: client,
			want: []string{ClientUpdated}, prev: []string{"status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Change{SourceID: "rec-1", Resource: tt.resource, TeamID: "team", Old: tt.old, New: tt.new, At: t0}
			evs, err := Derive(c)
			if err != nil {
				t.Fatalf("Derive = %v", err)
			}
			if got := types(evs); !slices.Equal(got, tt.want) {
				t.Fatalf("Derive(%s) types = %v; want %v", tt.name, got, tt.want)
			}
			wantAt := patio.NewTimestamp(t0) // the vehicle's created_at; the stream's time for records without one
			if nv, ok := tt.new.(patio.Vehicle); ok && tt.old != nil {
				wantAt = nv.UpdatedAt
			}
			for _, e := range evs {
				if e.ID != EventID("rec-1", e.Type) || !strings.HasPrefix(e.ID, "evt_") {
					t.Errorf("event id %q; want EventID(rec-1, %s)", e.ID, e.Type)
				}
				if e.APIVersion != "v1" || e.TeamID != "team" || e.CreatedAt != wantAt {
					t.Errorf("event %+v; want v1, team, created_at %s", e, wantAt)
				}
				wantObj, _ := json.Marshal(tt.new)
				if string(e.Data.Object) != string(wantObj) {
					t.Errorf("object = %s; want %s", e.Data.Object, wantObj)
				}
				if tt.old == nil {
					if e.Data.PreviousAttributes != nil {
						t.Errorf("previous_attributes = %v; want null on creation", e.Data.PreviousAttributes)
					}
					continue
				}
				var keys []string
				for k := range e.Data.PreviousAttributes {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, tt.prev) {
					t.Errorf("previous_attributes keys = %v; want %v", keys, tt.prev)
				}
				oldJSON, _ := json.Marshal(tt.old)
				var oldFields map[string]json.RawMessage
				_ = json.Unmarshal(oldJSON, &oldFields)
				for k, v := range e.Data.PreviousAttributes {
					if string(v) != string(oldFields[k]) {
						t.Errorf("previous_attributes[%s] = %s; want the old value %s", k, v, oldFields[k])
					}
				}
			}
		})
	}
}

// TestDeriveTime: an event's created_at is the record's own time, never the stream's approximate
// time, which DynamoDB Local rounds down to the minute.
func TestDeriveTime(t *testing.T) {
	stream := t0.Add(-59 * time.Second) // what the stream record claims
	created := vehicle()
	created.UpdatedAt = patio.NewTimestamp(t0.Add(time.Second)) // a creation's updated_at is not its time
	updated := created
	updated.Price, updated.UpdatedAt = 1, patio.NewTimestamp(t0.Add(2*time.Minute))
	tests := []struct {
		name     string
		old, new any
		want     time.Time
	}{
		{name: "creation: created_at", new: created, want: t0},
		{name: "update: updated_at", old: created, new: updated, want: t0.Add(2 * time.Minute)},
		{name: "no time in the record: the stream's", new: patio.Client{ID: "c", Status: patio.ClientActive}, want: stream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ResourceVehicle
			if _, ok := tt.new.(patio.Client); ok {
				res = ResourceClient
			}
			evs, err := Derive(Change{SourceID: "r", Resource: res, TeamID: "team", Old: tt.old, New: tt.new, At: stream})
			if err != nil || len(evs) == 0 {
				t.Fatalf("Derive = %v, %v", evs, err)
			}
			for _, e := range evs {
				if e.CreatedAt.Time() != tt.want {
					t.Errorf("%s created_at = %s; want %s", e.Type, e.CreatedAt, tt.want.Format(time.RFC3339))
				}
			}
		})
	}
}

func TestDeriveIsDeterministic(t *testing.T) {
	v := vehicle()
	n := v
	n.Price = 5
	c := Change{SourceID: "rec-7", Resource: ResourceVehicle, TeamID: "team", Old: v, New: n, At: t0}
	a, _ := Derive(c)
	b, _ := Derive(c)
	for i := range a {
		pa, _ := a[i].Payload("w")
		pb, _ := b[i].Payload("w")
		if string(pa) != string(pb) {
			t.Errorf("payload %d differs between runs:\n%s\n%s", i, pa, pb)
		}
	}
	c.SourceID = "rec-8"
	other, _ := Derive(c)
	if other[0].ID == a[0].ID {
		t.Errorf("two stream records gave the same event id %s", a[0].ID)
	}
}

func TestPayloadShape(t *testing.T) {
	evs, _ := Derive(Change{SourceID: "r", Resource: ResourceVehicle, TeamID: "team", New: vehicle(), At: t0})
	body, err := evs[0].Payload("hook")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "type", "api_version", "created_at", "data", "team_id", "webhook_id"} {
		if _, ok := got[k]; !ok {
			t.Errorf("payload lacks %q: %s", k, body)
		}
	}
	data := got["data"].(map[string]any)
	if v, ok := data["previous_attributes"]; !ok || v != nil {
		t.Errorf("data.previous_attributes = %v (present %v); want null", v, ok)
	}
	obj := data["object"].(map[string]any)
	for _, k := range []string{"id", "title", "brand", "model", "price", "phase", "status", "created_at"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("data.object lacks %q", k)
		}
	}
	if got["created_at"] != "2026-03-01T12:00:00Z" || got["webhook_id"] != "hook" {
		t.Errorf("created_at, webhook_id = %v, %v", got["created_at"], got["webhook_id"])
	}
}

func TestHeadersVerify(t *testing.T) {
	a, _ := NewSecret()
	b, _ := NewSecret()
	c, _ := NewSecret()
	body := []byte(`{"id":"evt_1"}`)
	at := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name string
		keys Keys
	}{
		{"one secret", Keys{a}},
		{"one rotation in grace", Keys{a, b}},
		{"two rotations in grace", Keys{a, b, c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hm := Headers("evt_1", body, tt.keys, at)
			h := http.Header{}
			for k, v := range hm {
				h.Set(k, v)
			}
			if h.Get("X-Service-Timestamp") != "1700000000" || h.Get("X-Service-Event-Id") != "evt_1" ||
				h.Get("webhook-id") != "evt_1" || h.Get("Content-Type") != "application/json" {
				t.Errorf("headers = %v", hm)
			}
			if sig := h.Get(HeaderSignature); sig != strings.ToLower(sig) || len(sig) != 64 {
				t.Errorf("X-Service-Signature = %q; want 64 lowercase hex digits", sig)
			}
			oldest, newest := tt.keys[0], tt.keys[len(tt.keys)-1]
			if h.Get(HeaderSignature) != SignHex(oldest, "1700000000", body) {
				t.Errorf("X-Service-Signature is not the oldest secret's signature")
			}
			if err := webhooksig.Verify(oldest, h, body, at); err != nil {
				t.Errorf("Verify(oldest) = %v", err)
			}
			if err := webhooksig.Verify(newest, h, body, at); err != nil {
				t.Errorf("Verify(newest) = %v", err)
			}
			for i, k := range tt.keys {
				if err := webhooksig.VerifyStandard(k, h, body, at); err != nil {
					t.Errorf("VerifyStandard(secret %d) = %v", i, err)
				}
			}
			if n := len(strings.Fields(h.Get(HeaderSWSignature))); n != len(tt.keys) {
				t.Errorf("webhook-signature has %d signatures; want %d", n, len(tt.keys))
			}
			switch {
			case len(tt.keys) > 1 && h.Get(HeaderSignatureNext) != SignHex(newest, "1700000000", body):
				t.Errorf("X-Service-Signature-Next is not the newest secret's signature")
			case len(tt.keys) == 1 && h.Get(HeaderSignatureNext) != "":
				t.Errorf("X-Service-Signature-Next set without a rotation")
			}
		})
	}
}

func TestSignStandardVector(t *testing.T) {
	got := SignStandard("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("SignStandard(vector) = %q; want %q", got, want)
	}
}

// TestRotation: every previous secret keeps signing until its own grace period ends, at most three
// sign at once, and a rotation that would make four ends the oldest one's grace at once.
func TestRotation(t *testing.T) {
	w, err := New("team", "https://example.com/hook", []string{"*"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	s0 := w.Secret
	r1, s1, err := w.Rotate(t0, DefaultGrace)
	if err != nil {
		t.Fatal(err)
	}
	r2, s2, _ := r1.Rotate(t0.Add(time.Hour), 2*time.Hour) // a second rotation within the first's grace
	r3, s3, _ := r2.Rotate(t0.Add(2*time.Hour), time.Hour) // a third: four would sign, the oldest stops
	r0, sNow, _ := w.Rotate(t0, 0)
	tests := []struct {
		name string
		w    Webhook
		at   time.Time
		want Keys
	}{
		{"no rotation", w, t0, Keys{s0}},
		{"first grace", r1, t0.Add(time.Hour), Keys{s0, s1}},
		{"first grace over", r1, t0.Add(DefaultGrace), Keys{s1}},
		{"second rotation: both previous sign", r2, t0.Add(2 * time.Hour), Keys{s0, s1, s2}},
		{"second's own grace over first", r2, t0.Add(3 * time.Hour), Keys{s0, s2}},
		{"both graces over", r2, t0.Add(DefaultGrace), Keys{s2}},
		{"third rotation: the oldest stops at once", r3, t0.Add(2 * time.Hour), Keys{s1, s2, s3}},
		{"no grace", r0, t0, Keys{sNow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.w.KeysAt(tt.at); !slices.Equal(got, tt.want) {
				t.Errorf("KeysAt(%s) = %d secrets %v; want %v", tt.at.Format(time.RFC3339), len(got), got, tt.want)
			}
		})
	}
	if s := r2.Settle(t0.Add(3 * time.Hour)); len(s.Previous) != 1 || s.Previous[0].Secret != s0 {
		t.Errorf("Settle kept %d previous secrets; want the first rotation's alone", len(s.Previous))
	}
	if !strings.HasPrefix(s1, SecretPrefix) || len(StandardKey(s1)) != 32 {
		t.Errorf("secret %q: want whsec_ + base64 of 32 bytes", s1)
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		events []string
		ok     bool
	}{
		{"https", "https://example.com/h", []string{"vehicle.created", "deal.won"}, true},
		{"all", "https://example.com/h", []string{"*"}, true},
		{"http refused", "http://example.com/h", []string{"*"}, false},
		{"relative", "/h", []string{"*"}, false},
		{"userinfo", "https://u:p@example.com/h", []string{"*"}, false},
		{"unknown event", "https://example.com/h", []string{"vehicle.exploded"}, false},
		{"no events", "https://example.com/h", nil, false},
		{"star and more", "https://example.com/h", []string{"*", "deal.won"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New("team", tt.url, tt.events, t0)
			if (err == nil) != tt.ok {
				t.Errorf("New(%q, %v) = %v; want ok %v", tt.url, tt.events, err, tt.ok)
			}
			if err != nil && !patio.IsKind(err, patio.KindInvalid) {
				t.Errorf("New(%q) error kind %v; want KindInvalid", tt.url, patio.KindOf(err))
			}
		})
	}
}

func TestParseSchedule(t *testing.T) {
	s, err := ParseSchedule("")
	if err != nil || s != DefaultSchedule {
		t.Errorf(`ParseSchedule("") = %v, %v; want the default`, s, err)
	}
	s, err = ParseSchedule("0s,1s,2s,3s,4s,5s")
	if err != nil || s.Before(1) != 0 || s.Before(6) != 5*time.Second {
		t.Errorf("ParseSchedule(0s..5s) = %v, %v", s, err)
	}
	for _, bad := range []string{"1s,2s", "0s,1s,2s,3s,4s,x", "0s,1s,2s,3s,4s,-5s"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) = nil; want an error", bad)
		}
	}
	if DefaultSchedule.Before(4) != 2*time.Hour || DefaultSchedule.Before(6) != 24*time.Hour {
		t.Errorf("DefaultSchedule = %v", DefaultSchedule)
	}
}

// TestSampleEvent: every event type has a sample, of its own type, with an evt_test_ id and the
// object of its resource; previous_attributes is null on creations only.
func TestSampleEvent(t *testing.T) {
	for _, typ := range EventTypes {
		t.Run(typ, func(t *testing.T) {
			e, err := SampleEvent(typ, "team", t0)
			if err != nil {
				t.Fatalf("SampleEvent(%s) = %v", typ, err)
			}
			if e.Type != typ || !strings.HasPrefix(e.ID, TestEventPrefix) || len(e.ID) != len(TestEventPrefix)+32 || e.TeamID != "team" {
				t.Errorf("SampleEvent(%s) = %s %s team %s; want its type, evt_test_ and 32 hex digits", typ, e.Type, e.ID, e.TeamID)
			}
			var obj map[string]any
			if err := json.Unmarshal(e.Data.Object, &obj); err != nil || obj["id"] == nil || obj["revision"] == nil {
				t.Errorf("SampleEvent(%s) object = %s; want a record with id and revision", typ, e.Data.Object)
			}
			if created := strings.HasSuffix(typ, ".created"); created != (e.Data.PreviousAttributes == nil) {
				t.Errorf("SampleEvent(%s) previous_attributes = %v; want null only on creations", typ, e.Data.PreviousAttributes)
			}
			// A won deal names the vehicle it sold (openapi.yaml): so does its sample.
			if typ == DealWon && obj["vehicle_id"] == nil {
				t.Errorf("SampleEvent(%s) object = %s; want a vehicle_id", typ, e.Data.Object)
			}
		})
	}
	if _, err := SampleEvent("vehicle.flown", "team", t0); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("SampleEvent(unknown type) = %v; want KindInvalid", err)
	}
}
