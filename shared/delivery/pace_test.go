package delivery_test

import (
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/webhook"
)

func TestAdjust(t *testing.T) {
	ok := func(d time.Duration) webhook.Result { return webhook.Result{StatusCode: 200, Duration: d} }
	status := func(code int) webhook.Result {
		return webhook.Result{StatusCode: code, Duration: 10 * time.Millisecond, ErrorClass: webhook.ErrHTTPStatus}
	}
	class := func(c string) webhook.Result { return webhook.Result{Duration: 5 * time.Second, ErrorClass: c} }
	tests := []struct {
		name  string
		bound int
		res   webhook.Result
		want  int
	}{
		{name: "none yet: 4, raised", bound: 0, res: ok(20 * time.Millisecond), want: 5},
		{name: "2xx within a second raises", bound: 7, res: ok(300 * time.Millisecond), want: 8},
		{name: "2xx in exactly a second raises", bound: 7, res: ok(time.Second), want: 8},
		{name: "slow 2xx leaves it", bound: 7, res: ok(1200 * time.Millisecond), want: 7},
		{name: "never above 32", bound: delivery.MaxBound, res: ok(time.Millisecond), want: delivery.MaxBound},
		{name: "timeout halves", bound: 8, res: class(webhook.ErrTimeout), want: 4},
		{name: "network error halves", bound: 8, res: class(webhook.ErrNetwork), want: 4},
		{name: "500 halves", bound: 8, res: status(500), want: 4},
		{name: "503 halves", bound: 9, res: status(503), want: 4},
		{name: "429 halves", bound: 32, res: status(429), want: 16},
		{name: "never below 1", bound: 1, res: status(500), want: 1},
		{name: "3 halves to 1", bound: 3, res: status(502), want: 1},
		{name: "404 leaves it", bound: 8, res: status(404), want: 8},
		{name: "a redirect leaves it", bound: 8, res: webhook.Result{StatusCode: 302, ErrorClass: webhook.ErrRedirect}, want: 8},
		{name: "a refused target leaves it", bound: 8, res: class(webhook.ErrForbidden), want: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := delivery.Adjust(tt.bound, tt.res); got != tt.want {
				t.Errorf("Adjust(%d, %+v) = %d; want %d", tt.bound, tt.res, got, tt.want)
			}
		})
	}
}

func TestHoldUntil(t *testing.T) {
	at := time.Date(2026, 10, 21, 7, 28, 0, 0, time.UTC)
	answer := func(code int, retryAfter string) webhook.Result {
		return webhook.Result{StatusCode: code, ErrorClass: webhook.ErrHTTPStatus, RetryAfter: retryAfter}
	}
	tests := []struct {
		name string
		res  webhook.Result
		want time.Duration // from at; 0: no hold
	}{
		{name: "429, seconds", res: answer(429, "2"), want: 2 * time.Second},
		{name: "503, seconds", res: answer(503, "120"), want: 2 * time.Minute},
		{name: "spaces around", res: answer(429, " 30 "), want: 30 * time.Second},
		{name: "an HTTP date", res: answer(429, "Wed, 21 Oct 2026 07:28:45 GMT"), want: 45 * time.Second},
		{name: "an RFC 850 date", res: answer(503, "Wednesday, 21-Oct-26 07:29:00 GMT"), want: time.Minute},
		{name: "an ANSI C date", res: answer(503, "Wed Oct 21 07:30:00 2026"), want: 2 * time.Minute},
		{name: "more than an hour counts as one", res: answer(429, "86400"), want: time.Hour},
		{name: "a date beyond an hour counts as one", res: answer(429, "Thu, 22 Oct 2026 07:28:00 GMT"), want: time.Hour},
		{name: "exactly an hour", res: answer(429, "3600"), want: time.Hour},
		{name: "zero seconds holds nothing", res: answer(429, "0")},
		{name: "a date past holds nothing", res: answer(503, "Tue, 20 Oct 2026 07:28:00 GMT")},
		{name: "negative holds nothing", res: answer(429, "-5")},
		{name: "unreadable holds nothing", res: answer(429, "soon")},
		{name: "none given holds nothing", res: answer(429, "")},
		{name: "500 with Retry-After holds nothing", res: answer(500, "10")},
		{name: "2xx with Retry-After holds nothing", res: webhook.Result{StatusCode: 200, RetryAfter: "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := delivery.HoldUntil(tt.res, at)
			if ok != (tt.want != 0) || (ok && !got.Equal(at.Add(tt.want))) {
				t.Errorf("HoldUntil(%d, Retry-After %q) = %v, %t; want %v", tt.res.StatusCode, tt.res.RetryAfter, got, ok, tt.want)
			}
		})
	}
}

// TestReserveKeepsTheRate: however many starts are reserved, in however many blocks, no one-second
// window holds more than the rate.
func TestReserveKeepsTheRate(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, rate := range []webhook.Rate{1, 3, 7, 10, 333, 1000} {
		var starts []time.Time
		next := time.Time{}
		// Blocks of various sizes, asked for at various moments (some while the rate's next start
		// is ahead, some after it passed).
		for i, k := range []int{1, int(rate), 2, int(rate)*2 + 1, 5} {
			asked := now.Add(time.Duration(i) * 700 * time.Millisecond)
			first, after := delivery.Reserve(next, asked, rate, k)
			if first.Before(asked) || first.Before(next) {
				t.Fatalf("rate %d: Reserve(%v, %v, %d) starts at %v; want neither before now nor before next", rate, next, asked, k, first)
			}
			step := after.Sub(first) / time.Duration(k)
			for j := range k {
				starts = append(starts, first.Add(time.Duration(j)*step))
			}
			next = after
		}
		for i, s := range starts {
			n := 0
			for _, o := range starts[i:] {
				if o.Sub(s) < time.Second {
					n++
				}
			}
			if n > int(rate) {
				t.Fatalf("rate %d: %d starts in the second from %v; want at most %d", rate, n, s, rate)
			}
		}
	}
}
