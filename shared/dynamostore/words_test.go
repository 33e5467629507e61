package dynamostore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// TestSearchSeveralTerms: q with several terms finds exactly the records with a word for each,
// counted exactly, whether one term is rare and another common (the rare one decides), both are
// common, or one matches nothing; in creation order and by name.
func TestSearchSeveralTerms(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	const n = 70 // more than the race's first pages, so that the common terms take several rounds
	var names []string
	for i := range n {
		name := fmt.Sprintf("Cliente Bench %04d", i)
		if i%10 == 3 {
			name = fmt.Sprintf("Bench Motors %04d", i)
		}
		names = append(names, name)
		createClient(t, s, team, individual(name, cpfOf(t, fmt.Sprintf("%09d", 100000+i))))
	}
	for _, tc := range []struct {
		q     string
		total int
	}{
		{"bench 0042", 1},
		{"0042 bench", 1},
		{"cliente bench", n - 7},
		{"bench cliente 001", 9}, // 0010 to 0019 but the Motors 0013
		{"motors bench", 7},
		{"bench zzz", 0},
		{"cli 0013 bench", 0}, // 0013 is a Motors client
	} {
		for _, sort := range []string{"", "name"} {
			q, err := patio.ClientQuery{Q: ptr(tc.q), ListQuery: patio.ListQuery{Sort: sort, Limit: patio.Some(100)}}.Check()
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Clients().List(ctx, team, q)
			if err != nil {
				t.Fatalf("q=%s: %v", tc.q, err)
			}
			if got.Total != tc.total || len(got.Items) != tc.total {
				t.Errorf("q=%q sort=%q: total %d, %d items; want %d", tc.q, sort, got.Total, len(got.Items), tc.total)
			}
			for _, c := range got.Items {
				if !slices.Contains(names, c.Name) {
					t.Errorf("q=%q: %q is not a client of the team", tc.q, c.Name)
				}
			}
		}
	}
}
