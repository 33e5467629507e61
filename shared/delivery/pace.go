package delivery

import (
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// The adaptive bound of a webhook: how many of its requests may be in flight at once, over every
// worker of the deployment.
const (
	// InitialBound is a webhook's bound until its receiver's answers move it.
	InitialBound = 4
	// MaxBound is the most a bound grows to.
	MaxBound = 32
	// quickAnswer is how soon a 2xx must come to raise the bound.
	quickAnswer = time.Second
	// MaxHold is the longest a Retry-After holds a webhook's deliveries; a longer one counts as
	// this.
	MaxHold = time.Hour
)

// Adjust returns the bound after an answer: a 2xx within a second raises it by one (up to
// MaxBound); a timeout, a network error, a 5xx or a 429 halves it (not below 1); any other answer
// leaves it. A bound of 0 is InitialBound.
func Adjust(bound int, res webhook.Result) int {
	if bound <= 0 {
		bound = InitialBound
	}
	switch {
	case res.OK() && res.Duration <= quickAnswer:
		return min(bound+1, MaxBound)
	case strained(res):
		return max(bound/2, 1)
	}
	return bound
}

// strained reports an answer that says the receiver is struggling: a timeout, a network error, a
// 5xx or a 429.
func strained(res webhook.Result) bool {
	switch res.ErrorClass {
	case webhook.ErrTimeout, webhook.ErrNetwork:
		return true
	case webhook.ErrHTTPStatus:
		return res.StatusCode >= 500 || res.StatusCode == 429
	}
	return false
}

// HoldUntil returns until when an answer received at at holds every delivery of its webhook: a 429
// or 503 with a Retry-After of a number of seconds or an HTTP date, at most MaxHold after at. ok is
// false when the answer holds nothing (another status, no or an unreadable Retry-After, a time
// already past).
func HoldUntil(res webhook.Result, at time.Time) (until time.Time, ok bool) {
	if res.StatusCode != 429 && res.StatusCode != 503 {
		return time.Time{}, false
	}
	v := strings.TrimSpace(res.RetryAfter)
	if v == "" {
		return time.Time{}, false
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		until = at.Add(time.Duration(min(n, uint64(MaxHold/time.Second))) * time.Second)
	} else {
		var parsed bool
		for _, layout := range httpDates {
			if t, err := time.Parse(layout, v); err == nil {
				until, parsed = t.UTC(), true
				break
			}
		}
		if !parsed {
			return time.Time{}, false
		}
		if limit := at.Add(MaxHold); until.After(limit) {
			until = limit
		}
	}
	return until, until.After(at)
}

// httpDates are the forms an HTTP date may take (RFC 9110, section 5.6.7): the preferred one,
// then the two obsolete ones.
var httpDates = []string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// spacing is the time between two request starts under a max_rate of rate per second: a second
// divided by rate, and 5% more, rounded up to the microsecond. The margin keeps a window from
// holding more than rate starts when a request goes out a few milliseconds after its start.
func spacing(rate webhook.Rate) time.Duration {
	us := (int64(time.Second/time.Microsecond)*105/100 + int64(rate) - 1) / int64(rate)
	return time.Duration(us) * time.Microsecond
}

// Reserve returns the starts of k requests under a max_rate of rate: from next (the earliest start
// the rate leaves), or from now when that is past, one every spacing, and the earliest start after
// them.
func Reserve(next, now time.Time, rate webhook.Rate, k int) (first, after time.Time) {
	first = next
	if first.Before(now) {
		first = now
	}
	return first, first.Add(time.Duration(k) * spacing(rate))
}
