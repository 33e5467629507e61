package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"
	"time"
)

// The Standard Webhooks specification's published test vector.
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = "1614265330"
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func hexSig(secret, ts, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	return hex.EncodeToString(m.Sum(nil))
}

func TestVerify(t *testing.T) {
	const secret, body = "whsec_c2VjcmV0", `{"id":"evt_1"}`
	now := time.Unix(1_700_000_000, 0)
	ts := "1700000000"
	tests := []struct {
		name          string
		ts, sig, next string
		body          string
		now           time.Time
		want          error
	}{
		{name: "valid", ts: ts, sig: hexSig(secret, ts, body), body: body, now: now},
		{name: "surrounding space", ts: ts, sig: "  " + hexSig(secret, ts, body), body: body, now: now},
		{name: "next signature during rotation", ts: ts, sig: hexSig("old", ts, body), next: hexSig(secret, ts, body), body: body, now: now},
		{name: "tampered body", ts: ts, sig: hexSig(secret, ts, body), body: body + " ", now: now, want: ErrNoMatch},
		{name: "wrong secret", ts: ts, sig: hexSig("other", ts, body), body: body, now: now, want: ErrNoMatch},
		{name: "signature of another timestamp", ts: ts, sig: hexSig(secret, "1700000001", body), body: body, now: now, want: ErrNoMatch},
		{name: "not hex", ts: ts, sig: "zz", body: body, now: now, want: ErrNoMatch},
		{name: "299 s old", ts: ts, sig: hexSig(secret, ts, body), body: body, now: now.Add(299 * time.Second)},
		{name: "301 s old", ts: ts, sig: hexSig(secret, ts, body), body: body, now: now.Add(301 * time.Second), want: ErrTooOld},
		{name: "301 s ahead", ts: ts, sig: hexSig(secret, ts, body), body: body, now: now.Add(-301 * time.Second), want: ErrTooOld},
		{name: "timestamp not a number", ts: "12a", sig: hexSig(secret, "12a", body), body: body, now: now, want: ErrBadTimestamp},
		{name: "missing signature", ts: ts, body: body, now: now, want: ErrMissingHeader},
		{name: "missing timestamp", sig: hexSig(secret, ts, body), body: body, now: now, want: ErrMissingHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.ts != "" {
				h.Set("X-Service-Timestamp", tt.ts)
			}
			if tt.sig != "" {
				h.Set("X-Service-Signature", tt.sig)
			}
			if tt.next != "" {
				h.Set("X-Service-Signature-Next", tt.next)
			}
			if got := Verify(secret, h, []byte(tt.body), tt.now); !errors.Is(got, tt.want) {
				t.Errorf("Verify(%q) = %v; want %v", tt.name, got, tt.want)
			}
		})
	}
}

// TestVerifyRotation: Verify accepts every secret a rotation leaves signing, the one between the
// oldest and the newest through webhook-signature only.
func TestVerifyRotation(t *testing.T) {
	const oldest, middle, newest, body = "whsec_b2xkZXN0", "whsec_bWlkZGxl", "whsec_bmV3ZXN0", `{"id":"evt_1"}`
	now := time.Unix(1_700_000_000, 0)
	ts := "1700000000"
	std := func(secret string) string {
		key, _ := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
		m := hmac.New(sha256.New, key)
		m.Write([]byte("evt_1." + ts + "." + body))
		return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	}
	full := http.Header{}
	full.Set("X-Service-Timestamp", ts)
	full.Set("X-Service-Signature", hexSig(oldest, ts, body))
	full.Set("X-Service-Signature-Next", hexSig(newest, ts, body))
	full.Set("webhook-id", "evt_1")
	full.Set("webhook-timestamp", ts)
	full.Set("webhook-signature", std(oldest)+" "+std(middle)+" "+std(newest))
	serviceOnly := full.Clone()
	serviceOnly.Del("webhook-signature")
	standardOnly := full.Clone()
	standardOnly.Del("X-Service-Signature")
	standardOnly.Del("X-Service-Signature-Next")
	standardOnly.Del("X-Service-Timestamp")
	tests := []struct {
		name   string
		secret string
		header http.Header
		want   error
	}{
		{"oldest", oldest, full, nil},
		{"middle, through webhook-signature", middle, full, nil},
		{"newest", newest, full, nil},
		{"another secret", "whsec_b3RoZXI=", full, ErrNoMatch},
		{"middle without webhook-signature", middle, serviceOnly, ErrNoMatch},
		{"newest without webhook-signature", newest, serviceOnly, nil},
		{"Standard Webhooks headers only", middle, standardOnly, nil},
		{"Standard Webhooks headers only, another secret", "whsec_b3RoZXI=", standardOnly, ErrMissingHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Verify(tt.secret, tt.header, []byte(body), now); !errors.Is(got, tt.want) {
				t.Errorf("Verify = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestVerifyStandard(t *testing.T) {
	at := time.Unix(1614265330, 0)
	tests := []struct {
		name string
		sig  string
		body string
		now  time.Time
		want error
	}{
		{name: "specification vector", sig: vectorSig, body: vectorBody, now: at},
		{name: "vector among rotation signatures", sig: "v1,AAAA " + vectorSig, body: vectorBody, now: at},
		{name: "other version ignored", sig: "v1a," + vectorSig[3:], body: vectorBody, now: at, want: ErrNoMatch},
		{name: "tampered body", sig: vectorSig, body: `{"test": 2432232315}`, now: at, want: ErrNoMatch},
		{name: "too old", sig: vectorSig, body: vectorBody, now: at.Add(301 * time.Second), want: ErrTooOld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			h.Set("webhook-id", vectorID)
			h.Set("webhook-timestamp", vectorTS)
			h.Set("webhook-signature", tt.sig)
			if got := VerifyStandard(vectorSecret, h, []byte(tt.body), tt.now); !errors.Is(got, tt.want) {
				t.Errorf("VerifyStandard(%q) = %v; want %v", tt.name, got, tt.want)
			}
		})
	}
}
