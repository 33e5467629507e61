// Package webhookhttp is the HTTP adapter that POSTs webhook attempts: https only, a timeout, no
// redirects followed, and (outside the local stack) connections only to public addresses, checked
// after DNS resolution on every connection so that a rebinding name cannot reach an internal
// address.
package webhookhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// DefaultTimeout bounds one attempt: the domain's webhook.DefaultTimeout.
const DefaultTimeout = webhook.DefaultTimeout

// Options configures a Sender.
type Options struct {
	// Timeout bounds one attempt, connection included; DefaultTimeout when zero.
	Timeout time.Duration
	// AllowPrivate lets targets resolve to loopback and private addresses: local stack and tests only.
	AllowPrivate bool
	// RootCAs, when set, replaces the system roots (tests trust their own receiver this way).
	RootCAs *x509.CertPool
}

// Sender POSTs webhook attempts. It is safe for concurrent use.
type Sender struct {
	client       *http.Client
	resolver     *net.Resolver
	allowPrivate bool
}

// errForbidden marks a connection refused because the address is not public.
var errForbidden = errors.New("target address is not public")

// New returns a sender.
func New(o Options) *Sender {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	dialer := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		// Control runs after resolution, for the very address being connected to.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return fmt.Errorf("%w: %s", errForbidden, address)
			}
			return nil
		}
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		// As many kept connections per receiver as requests a webhook may have in flight (its
		// adaptive bound at most): a busy receiver costs no TLS handshake per request.
		MaxIdleConnsPerHost: delivery.MaxBound,
		IdleConnTimeout:     30 * time.Second,
		// A proxy would connect on our behalf, past the address check.
		Proxy: nil,
	}
	return &Sender{
		client: &http.Client{
			Transport: transport,
			Timeout:   o.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		resolver:     net.DefaultResolver,
		allowPrivate: o.AllowPrivate,
	}
}

// LoadCAFile reads a PEM file of extra roots added to the system roots (WEBHOOK_CA_FILE).
func LoadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("webhookhttp: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("webhookhttp: %s holds no PEM certificate", path)
	}
	return pool, nil
}

// Send POSTs body with headers to target. A 2xx is success; a 3xx is a failure (redirects are never
// followed), as are other statuses, timeouts and network errors. The result keeps the first
// webhook.MaxResponseBody bytes of the response body (see excerpt) and its Retry-After header.
func (s *Sender) Send(ctx context.Context, target string, headers map[string]string, body []byte) webhook.Result {
	start := time.Now()
	res := webhook.Result{}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" {
		res.ErrorClass = webhook.ErrForbidden
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		res.ErrorClass = webhook.ErrNetwork
		return res
	}
	for k, v := range headers {
		req.Header[k] = []string{v} // exact names, including the lower-case Standard Webhooks ones
	}
	resp, err := s.client.Do(req)
	res.Duration = time.Since(start)
	if err != nil {
		res.ErrorClass, res.Reason = classify(err)
		return res
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, webhook.MaxResponseBody))
	// The rest is drained (within limits) so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	res.Body = excerpt(head)
	res.StatusCode = resp.StatusCode
	res.RetryAfter = resp.Header.Get("Retry-After")
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		res.ErrorClass = webhook.ErrRedirect
	default:
		res.ErrorClass = webhook.ErrHTTPStatus
	}
	return res
}

// excerpt returns the start of a response body as valid UTF-8: a character cut by the limit, and
// any invalid byte, become U+FFFD.
func excerpt(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// classify names why a request got no answer: its error class and a short reason for the log.
func classify(err error) (class, reason string) {
	var (
		ne         net.Error
		unknown    x509.UnknownAuthorityError
		hostname   x509.HostnameError
		invalid    x509.CertificateInvalidError
		verify     *tls.CertificateVerificationError
		record     tls.RecordHeaderError
		alert      tls.AlertError
		dns        *net.DNSError
		op         *net.OpError
		x509Reason = func(e error) string { return strings.TrimPrefix(e.Error(), "x509: ") }
	)
	switch {
	case errors.Is(err, errForbidden):
		return webhook.ErrForbidden, "the target address is not public"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return webhook.ErrTimeout, "no answer within the timeout"
	case errors.As(err, &unknown):
		return webhook.ErrTLS, x509Reason(unknown)
	case errors.As(err, &hostname):
		return webhook.ErrTLS, x509Reason(hostname)
	case errors.As(err, &invalid):
		return webhook.ErrTLS, x509Reason(invalid)
	case errors.As(err, &verify):
		return webhook.ErrTLS, x509Reason(verify.Err)
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return webhook.ErrTLS, "the receiver does not speak TLS (it answered plain HTTP)"
	case errors.As(err, &alert):
		return webhook.ErrTLS, "the receiver refused the handshake: " + alert.Error()
	case strings.Contains(err.Error(), "tls: "):
		msg := err.Error()
		return webhook.ErrTLS, msg[strings.Index(msg, "tls: "):]
	case errors.As(err, &dns):
		return webhook.ErrNetwork, "DNS: " + dns.Err
	case errors.As(err, &op) && op.Err != nil:
		return webhook.ErrNetwork, op.Err.Error()
	}
	return webhook.ErrNetwork, err.Error()
}

// CheckTarget refuses (KindInvalid) a target URL that is not https or, unless private targets are
// allowed, whose host is or resolves to an address that is not public.
func (s *Sender) CheckTarget(ctx context.Context, target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return patio.Invalidf("url must be an absolute https URL")
	}
	if s.allowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !Public(ip) {
			return patio.Invalidf("url must not point at a loopback, private, link-local or other non-public address")
		}
		return nil
	}
	addrs, err := s.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return patio.Invalidf("url host %s does not resolve", host)
	}
	for _, a := range addrs {
		if !Public(a) {
			return patio.Invalidf("url host %s resolves to a non-public address", host)
		}
	}
	return nil
}

// nonPublic lists the special-purpose ranges a webhook may not reach beyond what netip's predicates
// cover, after IANA's IPv4 and IPv6 Special-Purpose Address Registries: every range there that is
// not globally reachable, plus the transition ranges whose addresses embed an IPv4 address (NAT64,
// 6to4, Teredo), refused outright.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("192.31.196.0/24"), // AS112-v4
	netip.MustParsePrefix("192.52.193.0/24"), // AMT
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast
	netip.MustParsePrefix("192.175.48.0/24"), // direct delegation AS112 service
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, limited broadcast
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("5f00::/16"),       // SRv6 SIDs
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// Public reports whether ip is a public unicast address: not loopback, private, link-local
// (169.254.0.0/16 and its metadata services, fe80::/10), multicast, unspecified or another
// special-purpose range. An IPv6 address that embeds an IPv4 address (IPv4-mapped, -compatible or
// -translated, NAT64, 6to4, Teredo) is judged by that IPv4 address too.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	for _, v4 := range embeddedIPv4(ip) {
		if !Public(v4) {
			return false
		}
	}
	return true
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries by a well-known convention.
func embeddedIPv4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return nil
	}
	b := ip.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	zero := func(from, to int) bool {
		for _, x := range b[from:to] {
			if x != 0 {
				return false
			}
		}
		return true
	}
	var out []netip.Addr
	switch {
	case zero(0, 12): // IPv4-compatible ::a.b.c.d
		out = append(out, v4(12))
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // IPv4-translated
		out = append(out, v4(12))
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b: // NAT64 (both prefixes)
		out = append(out, v4(12))
	case b[0] == 0x20 && b[1] == 0x02: // 6to4: 2002:AABB:CCDD::/48
		out = append(out, v4(2))
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0: // Teredo: server, then obfuscated client
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		out = append(out, v4(4), client)
	}
	return out
}
