package delivery

import (
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// TestGateApply: what one worker's write makes of a webhook's gate, given what the others hold.
func TestGateApply(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	live, gone := now.Add(10*time.Second), now.Add(-time.Second)
	quick := webhook.Result{StatusCode: 200, Duration: 30 * time.Millisecond}
	timeout := webhook.Result{ErrorClass: webhook.ErrTimeout, Duration: 5 * time.Second}
	const me, other = "me", "other"
	tests := []struct {
		name      string
		gate      Gate
		change    change
		wantBound int
		wantLease int // this worker's lease after the write (0: none)
		wantHold  time.Time
	}{
		{name: "a first lease: the initial bound", change: change{want: 10},
			wantBound: InitialBound, wantLease: InitialBound},
		{name: "no more than asked for", change: change{want: 2}, wantBound: InitialBound, wantLease: 2},
		{name: "what another worker holds is not had", gate: Gate{Leases: map[string]Lease{other: {N: 3, Until: live}}},
			change: change{want: 10}, wantBound: InitialBound, wantLease: 1},
		{name: "a lease run out is free again", gate: Gate{Leases: map[string]Lease{other: {N: 4, Until: gone}}},
			change: change{want: 10}, wantBound: InitialBound, wantLease: InitialBound},
		{name: "quick answers raise the bound for everyone", gate: Gate{Bound: 6},
			change: change{want: 32, answers: []webhook.Result{quick, quick, quick}}, wantBound: 9, wantLease: 9},
		{name: "answers apply to the stored bound, in order", gate: Gate{Bound: 10},
			change: change{want: 1, answers: []webhook.Result{timeout, quick}}, wantBound: 6, wantLease: 1},
		{name: "sends in flight stay leased when the bound falls", gate: Gate{Bound: 8, Leases: map[string]Lease{me: {N: 8, Until: live}}},
			change: change{inFlight: 6, want: 8, answers: []webhook.Result{timeout}}, wantBound: 4, wantLease: 6},
		{name: "the bound never passes 32", gate: Gate{Bound: 31},
			change: change{want: 40, answers: []webhook.Result{quick, quick, quick}}, wantBound: MaxBound, wantLease: MaxBound},
		{name: "a release gives the lease back", gate: Gate{Bound: 5, Leases: map[string]Lease{me: {N: 5, Until: live}}},
			change: change{release: true, answers: []webhook.Result{quick}}, wantBound: 6},
		{name: "the later hold wins", gate: Gate{Hold: now.Add(time.Minute)},
			change: change{want: 1, hold: now.Add(time.Second)}, wantBound: InitialBound, wantLease: 1, wantHold: now.Add(time.Minute)},
		{name: "a new hold", change: change{want: 1, hold: now.Add(2 * time.Second)},
			wantBound: InitialBound, wantLease: 1, wantHold: now.Add(2 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change.holder, tt.change.leaseFor = me, 20*time.Second
			got, _, _ := tt.gate.apply(tt.change, now)
			if got.Bound != tt.wantBound {
				t.Errorf("bound = %d; want %d", got.Bound, tt.wantBound)
			}
			if l := got.Leases[me]; l.N != tt.wantLease || (l.N > 0 && !l.Until.Equal(now.Add(20*time.Second))) {
				t.Errorf("lease = %+v; want %d until %v", l, tt.wantLease, now.Add(20*time.Second))
			}
			if o, ok := tt.gate.Leases[other]; ok && o.Until.After(now) && got.Leases[other] != o {
				t.Errorf("the other worker's lease became %+v; want it left %+v", got.Leases[other], o)
			}
			if _, ok := got.Leases[other]; ok && !tt.gate.Leases[other].Until.After(now) {
				t.Errorf("a lease run out is kept: %+v", got.Leases[other])
			}
			if !got.Hold.Equal(tt.wantHold) {
				t.Errorf("hold = %v; want %v", got.Hold, tt.wantHold)
			}
		})
	}
}

// TestGateApplyStarts: under a max_rate, a write reserves a block of starts from the gate's next
// start (or now), and a release gives back a block left unused when nobody reserved after it.
func TestGateApplyStarts(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	g := Gate{NextStart: now.Add(300 * time.Millisecond)}
	next, first, after := g.apply(change{holder: "me", want: 3, rate: 10, starts: 3, leaseFor: time.Minute}, now)
	// Three spacings of a tenth of a second and 5%.
	if !first.Equal(g.NextStart) || !after.Equal(first.Add(315*time.Millisecond)) || !next.NextStart.Equal(after) {
		t.Fatalf("reserved [%v, %v), next start %v; want 3 starts 105 ms apart from %v", first, after, next.NextStart, g.NextStart)
	}
	past := Gate{NextStart: now.Add(-time.Hour)}
	if _, first, _ := past.apply(change{holder: "me", want: 1, rate: 10, starts: 1, leaseFor: time.Minute}, now); !first.Equal(now) {
		t.Errorf("a block reserved after the next start passed begins at %v; want now", first)
	}
	back, _, _ := next.apply(change{holder: "me", release: true, rate: 10, unusedFrom: first.Add(105 * time.Millisecond), unusedTo: after}, now)
	if !back.NextStart.Equal(first.Add(105 * time.Millisecond)) {
		t.Errorf("after a release with two starts unused, next start = %v; want %v", back.NextStart, first.Add(105*time.Millisecond))
	}
	taken := next
	taken.NextStart = after.Add(time.Second) // another worker reserved after this block
	if back, _, _ := taken.apply(change{holder: "me", release: true, rate: 10, unusedFrom: first, unusedTo: after}, now); !back.NextStart.Equal(taken.NextStart) {
		t.Errorf("a release after another worker's reservation moved the next start to %v; want it left at %v", back.NextStart, taken.NextStart)
	}
}
