// Package webhooksig verifies Patio webhook deliveries, for integrators writing receivers in Go.
// It depends on the standard library only.
//
//	func handle(w http.ResponseWriter, r *http.Request) {
//		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the raw body, before any JSON decoding
//		if err != nil || webhooksig.Verify(secret, r.Header, body, time.Now()) != nil {
//			http.Error(w, "invalid signature", http.StatusUnauthorized)
//			return
//		}
//		// Answer 200 quickly; process the event (idempotently, by its id) afterwards.
//	}
//
// Verify checks X-Service-Signature (the lowercase hex HMAC-SHA256 of "<X-Service-Timestamp>.<raw
// body>" keyed with the secret string) and X-Service-Signature-Next, and then the Standard Webhooks
// header, which carries a signature for every secret still signing. During a rotation's grace
// period X-Service-Signature carries the oldest secret's signature and X-Service-Signature-Next the
// newest one's, so a receiver may switch to its new secret at any moment; a secret between the two
// (a second rotation within the first's grace period) verifies through webhook-signature.
// VerifyStandard checks the Standard Webhooks headers alone.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is the largest accepted difference between the signature timestamp and now.
const Tolerance = 300 * time.Second

// Errors returned by Verify and VerifyStandard. Answer 401 to any of them.
var (
	ErrMissingHeader = errors.New("webhooksig: signature or timestamp header missing")
	ErrBadTimestamp  = errors.New("webhooksig: timestamp is not a Unix time in seconds")
	ErrTooOld        = errors.New("webhooksig: timestamp outside the tolerance")
	ErrNoMatch       = errors.New("webhooksig: no signature matches")
)

// Verify checks a delivery signed with secret (the "whsec_..." string): X-Service-Timestamp within
// Tolerance of now, and X-Service-Signature or X-Service-Signature-Next equal, in constant time, to
// the HMAC-SHA256 of "<timestamp>.<body>"; failing that, the Standard Webhooks headers as
// VerifyStandard checks them. body must be the raw request body. The error is the X-Service
// headers' when neither verifies.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	err := verifyService(secret, header, body, now)
	if err != nil && header.Get("webhook-signature") != "" && VerifyStandard(secret, header, body, now) == nil {
		return nil
	}
	return err
}

// verifyService checks the X-Service headers.
func verifyService(secret string, header http.Header, body []byte, now time.Time) error {
	ts := header.Get("X-Service-Timestamp")
	sigs := []string{header.Get("X-Service-Signature"), header.Get("X-Service-Signature-Next")}
	if ts == "" || sigs[0] == "" {
		return ErrMissingHeader
	}
	if err := checkTime(ts, now); err != nil {
		return err
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		got, err := hex.DecodeString(strings.TrimSpace(s))
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoMatch
}

// VerifyStandard checks a delivery by its Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature): the timestamp within Tolerance of now and one of the
// space-separated "v1,<base64>" signatures equal to the HMAC-SHA256 of "<id>.<timestamp>.<body>"
// keyed with the base64-decoded part of the secret after "whsec_".
func VerifyStandard(secret string, header http.Header, body []byte, now time.Time) error {
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeader
	}
	if err := checkTime(ts, now); err != nil {
		return err
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return errors.New("webhooksig: secret is not whsec_ followed by base64")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoMatch
}

func checkTime(ts string, now time.Time) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	d := now.Sub(time.Unix(sec, 0))
	if d > Tolerance || d < -Tolerance {
		return ErrTooOld
	}
	return nil
}
