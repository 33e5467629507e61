package consoletest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// delivery is one POST a receiver got, as it verified it.
type delivery struct {
	Event   map[string]any
	Header  http.Header
	Body    []byte
	At      time.Time
	Status  int
	Problem string // "" when it verified
}

// receiver is an HTTPS webhook receiver that verifies each delivery against the secrets it was
// told, both by the rule receivers are given (HMAC-SHA256 of "<timestamp>.<body>", hex, compared
// in constant time, the timestamp within 300 s) and with the Standard Webhooks library.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	status func(n int) int

	mu      sync.Mutex
	secrets []string
	got     []delivery
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{t: t, status: status}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// url is where the receiver takes deliveries.
func (r *receiver) url() string { return r.srv.URL + "/hooks/patio" }

// trust adds a secret the receiver accepts.
func (r *receiver) trust(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, secret)
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := time.Now()
	r.mu.Lock()
	n := len(r.got) + 1
	d := delivery{Header: req.Header.Clone(), Body: body, At: now, Status: r.status(n)}
	_ = json.Unmarshal(body, &d.Event)
	d.Problem = verify(r.secrets, req.Header, body, now)
	r.got = append(r.got, d)
	r.mu.Unlock()
	w.WriteHeader(d.Status)
	_, _ = w.Write([]byte(`{"received":` + strconv.Itoa(n) + `,"note":"receiver of the console test"}`))
}

// verify checks one delivery against the accepted secrets: "" when the X-Service signature (or its
// -Next during a rotation) and the Standard Webhooks signature verify with one of them.
func verify(secrets []string, h http.Header, body []byte, now time.Time) string {
	ts := h.Get("X-Service-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 300*time.Second {
		return "timestamp " + ts
	}
	for _, s := range secrets {
		mac := hmac.New(sha256.New, []byte(s))
		mac.Write([]byte(ts + "." + string(body)))
		want := hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(h.Get("X-Service-Signature")), []byte(want)) &&
			!hmac.Equal([]byte(h.Get("X-Service-Signature-Next")), []byte(want)) {
			continue
		}
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return "standard webhooks: " + err.Error()
		}
		if err := wh.Verify(body, h); err != nil {
			return "standard webhooks: " + err.Error()
		}
		return ""
	}
	return "no secret verifies X-Service-Signature"
}

// deliveries returns what the receiver got so far.
func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

func always(code int) func(int) int { return func(int) int { return code } }
