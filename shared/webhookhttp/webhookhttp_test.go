package webhookhttp

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

func TestPublic(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // instance metadata
		{"fe80::1", false},
		{"fd00:ec2::254", false}, // IPv6 metadata
		{"0.0.0.0", false},
		{"100.64.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"192.88.99.1", false},
		// Transition ranges, and IPv6 forms of IPv4 addresses.
		{"64:ff9b::a9fe:a9fe", false},  // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", false},    // NAT64 even of a public address: the range is refused
		{"64:ff9b:1::a00:1", false},    // local-use NAT64 of 10.0.0.1
		{"2002:a9fe:a9fe::1", false},   // 6to4 of 169.254.169.254
		{"2002:808:808::1", false},     // 6to4 of 8.8.8.8: the range is refused
		{"2001:0:4136:e378::1", false}, // Teredo
		{"::a9fe:a9fe", false},         // IPv4-compatible 169.254.169.254
		{"::7f00:1", false},            // IPv4-compatible 127.0.0.1
		{"::ffff:0:a00:1", false},      // IPv4-translated 10.0.0.1
		{"::ffff:0:808:808", false},    // IPv4-translated range
		{"100::1", false},              // discard-only
		{"3fff::1", false},             // documentation
		{"2001:4860:4860::8888", true}, // public IPv6
		{"2a00:1450:4001:81c::200e", true},
	}
	for _, tt := range tests {
		if got := Public(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("Public(%s) = %v; want %v", tt.ip, got, tt.want)
		}
	}
}

func TestCheckTarget(t *testing.T) {
	s := New(Options{})
	tests := []struct {
		name, url string
	}{
		{"http", "http://example.com/hook"},
		{"loopback literal", "https://127.0.0.1/hook"},
		{"metadata", "https://169.254.169.254/latest/meta-data"},
		{"private", "https://10.0.0.5/hook"},
		{"ipv6 loopback", "https://[::1]/hook"},
		{"localhost name", "https://localhost/hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.CheckTarget(context.Background(), tt.url)
			if !patio.IsKind(err, patio.KindInvalid) {
				t.Errorf("CheckTarget(%q) = %v; want KindInvalid", tt.url, err)
			}
		})
	}
	if err := New(Options{AllowPrivate: true}).CheckTarget(context.Background(), "https://127.0.0.1/h"); err != nil {
		t.Errorf("CheckTarget(loopback, AllowPrivate) = %v; want nil", err)
	}
	if err := New(Options{AllowPrivate: true}).CheckTarget(context.Background(), "http://127.0.0.1/h"); err == nil {
		t.Errorf("CheckTarget(http, AllowPrivate) = nil; want an error: https is always required")
	}
}

func pool(srv *httptest.Server) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(srv.Certificate())
	return p
}

// TestSendFailureReasons: an attempt that gets no answer says why: a TLS failure is class "tls"
// with the certificate's problem, not "network".
func TestSendFailureReasons(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.StartTLS()
	defer srv.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plain.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := "https://" + closed.Listener.Addr().String() + "/hooks"
	closed.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name       string
		roots      *x509.CertPool
		url        string
		wantClass  string
		wantReason string
	}{
		{"untrusted certificate", nil, srv.URL + "/hooks", webhook.ErrTLS, "certificate signed by unknown authority"},
		{"certificate for another name", pool(srv), fmt.Sprintf("https://localhost:%d/hooks", port), webhook.ErrTLS, "not localhost"},
		{"no TLS at all", pool(srv), "https://" + plain.Listener.Addr().String() + "/hooks", webhook.ErrTLS, "does not speak TLS"},
		{"nobody listening", pool(srv), closedURL, webhook.ErrNetwork, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{AllowPrivate: true, RootCAs: tt.roots}
			if tt.roots == nil {
				o.RootCAs = x509.NewCertPool() // trusts nothing, like a receiver with a self-signed certificate
			}
			res := New(o).Send(context.Background(), tt.url, nil, []byte(`{}`))
			if res.ErrorClass != tt.wantClass || !strings.Contains(res.Reason, tt.wantReason) {
				t.Errorf("Send(%s) = class %q, reason %q; want %q, a reason with %q", tt.url, res.ErrorClass, res.Reason, tt.wantClass, tt.wantReason)
			}
		})
	}
}

func TestSend(t *testing.T) {
	var got http.Header
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			got = r.Header.Clone()
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		case "/fail":
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"database down"}`))
		case "/long":
			// 4 KiB less one byte of ASCII, then a two-byte character cut by the limit, then more.
			_, _ = w.Write([]byte(strings.Repeat("a", webhook.MaxResponseBody-1) + "é" + strings.Repeat("b", 10000)))
		case "/binary":
			_, _ = w.Write([]byte{'o', 'k', 0xff, 0xfe})
		case "/busy":
			w.Header().Set("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	headers := map[string]string{"webhook-id": "evt_1", "X-Service-Event-Id": "evt_1"}

	tests := []struct {
		name      string
		o         Options
		url       string
		wantClass string
		wantCode  int
		wantBody  string
		wantRetry string
	}{
		{"delivered", Options{AllowPrivate: true}, srv.URL + "/ok", "", 200, "", ""},
		{"redirect not followed", Options{AllowPrivate: true}, srv.URL + "/redirect", webhook.ErrRedirect, 302, "", ""},
		{"server error", Options{AllowPrivate: true}, srv.URL + "/fail", webhook.ErrHTTPStatus, 500, `{"error":"database down"}`, ""},
		{"first 4 KiB, valid UTF-8", Options{AllowPrivate: true}, srv.URL + "/long", "", 200, strings.Repeat("a", webhook.MaxResponseBody-1) + "\uFFFD", ""},
		{"invalid bytes replaced", Options{AllowPrivate: true}, srv.URL + "/binary", "", 200, "ok\uFFFD", ""},
		{"timeout", Options{AllowPrivate: true, Timeout: 100 * time.Millisecond}, srv.URL + "/slow", webhook.ErrTimeout, 0, "", ""},
		{"private refused at connection", Options{}, srv.URL + "/ok", webhook.ErrForbidden, 0, "", ""},
		{"http refused", Options{AllowPrivate: true}, "http://" + srv.Listener.Addr().String() + "/ok", webhook.ErrForbidden, 0, "", ""},
		{"Retry-After kept as sent", Options{AllowPrivate: true}, srv.URL + "/busy", webhook.ErrHTTPStatus, 429, "", "Wed, 21 Oct 2026 07:28:00 GMT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.RootCAs = pool(srv)
			res := New(tt.o).Send(ctx, tt.url, headers, []byte(`{}`))
			if res.ErrorClass != tt.wantClass || res.StatusCode != tt.wantCode {
				t.Errorf("Send(%s) = %+v; want class %q, status %d", tt.url, res, tt.wantClass, tt.wantCode)
			}
			if res.RetryAfter != tt.wantRetry {
				t.Errorf("Send(%s) Retry-After = %q; want %q", tt.url, res.RetryAfter, tt.wantRetry)
			}
			if res.Body != tt.wantBody {
				t.Errorf("Send(%s) body = %.80q (%d bytes); want %.80q (%d bytes)", tt.url, res.Body, len(res.Body), tt.wantBody, len(tt.wantBody))
			}
		})
	}
	if got.Get("webhook-id") != "evt_1" {
		t.Errorf("receiver headers = %v; want webhook-id evt_1", got)
	}
}
