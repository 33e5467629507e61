package render

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// TestRefusedListsEveryProblem: a refused form keeps every problem, each next to its field (a
// link's next to the text it is found by) and all in its summary, in the order they were found.
func TestRefusedListsEveryProblem(t *testing.T) {
	var p patio.Problems
	p.Add(patio.InBody, "title", "%s is required", "title")
	p.Add(patio.InBody, "client_id", "%s is required", "client_id")
	p.Add(patio.InBody, "colour", "unknown field %s", "colour")
	f := Refused(locale.New(locale.En, time.UTC), url.Values{}, p.Err(), "title", "client", "client_id")
	var got []Problem
	got = append(got, f.Summary()...)
	want := []Problem{{"", "unknown field colour"}, {"title", "Title is required"}, {"client", "Client is required"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refused(...).Summary() = %q; want %q", got, want)
	}
	if got := f.ProblemsOf("client"); len(got) != 1 {
		t.Errorf("Refused(...).ProblemsOf(client) = %q; want the client's problem next to its field", got)
	}
	if f.Heading == "" {
		t.Errorf("Refused(...).Heading is empty; want the summary's heading")
	}
}
