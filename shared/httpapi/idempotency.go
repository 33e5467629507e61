package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/patio-dev/patio/shared/patio"
)

// idempotencyKey reads a POST's Idempotency-Key header: 1 to 255 printable ASCII characters. ok is
// false without the header.
func idempotencyKey(r *http.Request, b body) (key patio.IdempotencyKey, ok bool, err error) {
	vals, ok := r.Header["Idempotency-Key"]
	if !ok {
		return key, false, nil
	}
	k := ""
	if len(vals) == 1 {
		k = vals[0]
	}
	if len(vals) != 1 || len(k) < 1 || len(k) > 255 || !printable(k) {
		return key, false, problem(patio.InHeader, "Idempotency-Key",
			"Idempotency-Key must be sent once, as 1 to 255 printable ASCII characters")
	}
	return patio.IdempotencyKey{Key: k, Fingerprint: fingerprint(r, b)}, true, nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// fingerprint identifies a request for its Idempotency-Key: method, path and the body compared as
// parsed JSON (member order and white space do not matter; json.Marshal sorts members).
func fingerprint(r *http.Request, b body) string {
	h := sha256.New()
	h.Write([]byte(r.Method + "\n" + r.URL.Path + "\n"))
	for _, k := range sortedKeys(b) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(b[k]))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			v = string(b[k])
		}
		canon, _ := json.Marshal(v)
		kb, _ := json.Marshal(k)
		h.Write(kb)
		h.Write([]byte{':'})
		h.Write(canon)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
