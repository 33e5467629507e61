package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Header names of a delivery: the service's own X-Service-* headers and those of Standard Webhooks.
const (
	HeaderSignature     = "X-Service-Signature"
	HeaderSignatureNext = "X-Service-Signature-Next"
	HeaderTimestamp     = "X-Service-Timestamp"
	HeaderEventID       = "X-Service-Event-Id"
	HeaderContentType   = "Content-Type"
	HeaderUserAgent     = "User-Agent"
	HeaderSWID          = "webhook-id"
	HeaderSWTimestamp   = "webhook-timestamp"
	HeaderSWSignature   = "webhook-signature"
)

// UserAgent names the sender of every delivery.
const UserAgent = "Patio-Webhooks/1"

// Headers returns the headers of one attempt to deliver body (the event eventID) at t, signed with
// keys (oldest first, see Keys): X-Service-Signature is the lowercase hex HMAC-SHA256 of
// "<timestamp>.<body>" keyed with the oldest secret string's UTF-8 bytes, X-Service-Signature-Next
// the same with the newest when several sign; webhook-signature is the Standard Webhooks
// "v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>" keyed with the base64-decoded bytes after
// "whsec_", one per secret, space-separated.
func Headers(eventID string, body []byte, keys Keys, t time.Time) map[string]string {
	ts := strconv.FormatInt(t.Unix(), 10)
	h := map[string]string{
		HeaderContentType: "application/json",
		HeaderUserAgent:   UserAgent,
		HeaderTimestamp:   ts,
		HeaderEventID:     eventID,
		HeaderSWID:        eventID,
		HeaderSWTimestamp: ts,
	}
	if len(keys) == 0 {
		return h
	}
	h[HeaderSignature] = SignHex(keys[0], ts, body)
	if len(keys) > 1 {
		h[HeaderSignatureNext] = SignHex(keys[len(keys)-1], ts, body)
	}
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = SignStandard(k, eventID, ts, body)
	}
	h[HeaderSWSignature] = strings.Join(sigs, " ")
	return h
}

// SignHex returns the X-Service-Signature of body sent at timestamp ts (Unix seconds, as sent).
func SignHex(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// SignStandard returns one Standard Webhooks signature ("v1,<base64>") of body. The key is the
// base64 decoding of the secret after "whsec_"; a secret that does not decode is used as raw bytes.
func SignStandard(secret, id, ts string, body []byte) string {
	m := hmac.New(sha256.New, StandardKey(secret))
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// StandardKey returns the Standard Webhooks signing key of a secret: the base64 decoding of what
// follows "whsec_".
func StandardKey(secret string) []byte {
	s := strings.TrimPrefix(secret, SecretPrefix)
	if key, err := base64.StdEncoding.DecodeString(s); err == nil {
		return key
	}
	return []byte(s)
}
