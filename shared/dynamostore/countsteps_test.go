package dynamostore

import (
	"fmt"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// TestCountStepsMoveEachChangeOnce: the transactions a team's counts are moved in add every
// change past the stream mark once, each within a transaction's items, the mark moving forward;
// a change of more counter items than a transaction holds goes in chunks, and a handling that
// resumes from a chunk moves only the chunks after it.
func TestCountStepsMoveEachChangeOnce(t *testing.T) {
	change := func(pos string, counters, from int) countMove {
		d := lists.Tally{}
		for i := range counters {
			d.Add(storeformat.Count{Item: fmt.Sprintf("w=%04d", from+i), Attr: "ativo"}, 1)
		}
		d.Add(storeformat.Count{Item: "brand=fiat", Attr: "ativo"}, 1) // a counter every change shares
		return countMove{pos: pos, d: d}
	}
	moves := []countMove{
		change("0011", 3, 0), change("0012", 40, 100), change("0013", 70, 200), // the third joins no run of the first two
		change("0014", 250, 1000), // chunked: 251 items, three chunks
		change("0015", 2, 2000), change("0016", 2, 3000),
	}
	sum := func(steps []countStep) lists.Tally {
		out := lists.Tally{}
		for _, st := range steps {
			for k, n := range st.d {
				out.Add(k, n)
			}
		}
		return out
	}
	want := func(from int) lists.Tally {
		out := lists.Tally{}
		for _, m := range moves[from:] {
			for k, n := range m.d {
				out.Add(k, n)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		at    streamAt
		want  lists.Tally
		first string // the position the first step moves the mark to
		steps int
	}{
		{"from the start", streamAt{}, want(0), "0012", 6},
		{"after the second change", streamAt{pos: "0012"}, want(2), "0013", 5},
		{"within the chunked change", streamAt{pos: "0014", part: 2}, func() lists.Tally {
			out := want(4)
			for k, n := range chunks(moves[3].d)[2] {
				out.Add(k, n)
			}
			return out
		}(), "0014", 2},
		{"all counted", streamAt{pos: "0016"}, lists.Tally{}, "", 0},
	} {
		steps := countSteps(tc.at, moves)
		if got := sum(steps); len(got.Minus(tc.want)) > 0 || len(steps) != tc.steps {
			t.Errorf("%s: %d steps moving %d counts apart from the changes'; want %d steps, none apart", tc.name, len(steps),
				len(got.Minus(tc.want)), tc.steps)
		}
		prev := tc.at
		for i, st := range steps {
			if n := len(st.d.Items()); n > storeformat.MarkChunk {
				t.Errorf("%s: step %d moves %d counter items; a transaction holds %d with the mark", tc.name, i, n, storeformat.MarkChunk)
			}
			if st.next.pos < prev.pos || st.next.pos == prev.pos && st.next.part != 0 && st.next.part <= prev.part {
				t.Errorf("%s: step %d moves the mark from %v back to %v", tc.name, i, prev, st.next)
			}
			prev = st.next
		}
		if len(steps) > 0 && steps[0].next.pos != tc.first {
			t.Errorf("%s: the first step moves the mark to %s; want %s", tc.name, steps[0].next.pos, tc.first)
		}
	}
}
