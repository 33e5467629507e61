package patio

import (
	"context"
	"time"
)

// Window names a rate-limit window (per UTC minute and per UTC day).
type Window int

// The windows. WindowNone means no window refused the request.
const (
	WindowNone Window = iota
	WindowMinute
	WindowDay
)

// RateCounter keeps the per-team request counters.
type RateCounter interface {
	// Count adds one request to the team's counters of the UTC minute and the UTC day containing now,
	// unless the minute count has reached perMinute or the day count has reached perDay (0 means no
	// day limit; the day is counted all the same). It returns the counts including this request, or the
	// window that refused it; a refused request is not counted. Counting is atomic across processes.
	Count(ctx context.Context, teamID string, now time.Time, perMinute, perDay int) (minute, day int, refused Window, err error)
	// Uncount takes back one request Count counted for the team at now (in the same minute and day).
	Uncount(ctx context.Context, teamID string, now time.Time) error
}

// RateStatus is what the X-RateLimit-* headers report: the window that binds first.
type RateStatus struct {
	Limit     int
	Remaining int
	Reset     time.Time // when the binding window starts over
	// RetryAfter is set when the request was refused: the time until the refusing window resets.
	RetryAfter time.Duration
}

// Throttle counts a request of the team against its plan. It returns the status of the window that
// binds first (the minute, or the day once the day's remainder is smaller) and, when a limit is
// reached, a KindRateLimited error (the request was not counted).
func Throttle(ctx context.Context, counter RateCounter, team Team, now time.Time) (RateStatus, error) {
	l := team.Plan.Limits()
	minute, day, refused, err := counter.Count(ctx, team.ID, now, l.PerMinute, l.PerDay)
	if err != nil {
		return RateStatus{}, err
	}
	minuteReset := now.UTC().Truncate(time.Minute).Add(time.Minute)
	y, m, d := now.UTC().Date()
	dayReset := time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
	switch refused {
	case WindowMinute:
		st := RateStatus{Limit: l.PerMinute, Reset: minuteReset, RetryAfter: minuteReset.Sub(now)}
		return st, Errorf(KindRateLimited, "rate limit of %d requests per minute exceeded; retry after %s", l.PerMinute, minuteReset.Format(TimestampLayout))
	case WindowDay:
		st := RateStatus{Limit: l.PerDay, Reset: dayReset, RetryAfter: dayReset.Sub(now)}
		return st, Errorf(KindRateLimited, "rate limit of %d requests per day exceeded; retry after %s", l.PerDay, dayReset.Format(TimestampLayout))
	}
	st := RateStatus{Limit: l.PerMinute, Remaining: max(l.PerMinute-minute, 0), Reset: minuteReset}
	if l.PerDay > 0 && l.PerDay-day < st.Remaining {
		st = RateStatus{Limit: l.PerDay, Remaining: max(l.PerDay-day, 0), Reset: dayReset}
	}
	return st, nil
}
