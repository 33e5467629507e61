package localstack

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/dev/samtemplate"
)

// The indexer keeps its stream positions in a file of its own beside the dispatcher's, as each
// function's event source mappings have their own positions on AWS; no file means none kept.
func TestIndexCheckpoints(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{".data/stream-checkpoints.json", filepath.Join(".data", "index-checkpoints.json")},
		{"/tmp/x/stream-checkpoints.json", "/tmp/x/index-checkpoints.json"},
		{"/tmp/x/index-checkpoints.json", "/tmp/x/index-checkpoints.json.indexer"},
	} {
		if got := IndexCheckpoints(tc.in); got != tc.want {
			t.Errorf("IndexCheckpoints(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// The local stack polls each stream function's streams as template.yaml maps them: the
// dispatcher the five resource tables' inserted and modified rows, the indexer the vehicles',
// clients' and deals' rows inserted, modified and removed, each with its function's timeout.
func TestStreamPoll(t *testing.T) {
	tpl, _, err := samtemplate.LoadModule()
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{}
	for _, id := range []string{"VehiclesTable", "ClientsTable", "DealsTable", "ActivitiesTable", "FinancialTable"} {
		local[id] = "local-" + id
	}
	rec := func(event, sk string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventName: event, Change: events.DynamoDBStreamRecord{
			Keys: map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("team"), "sk": events.NewStringAttribute(sk)}}}
	}
	for _, tc := range []struct {
		function string
		tables   []string
		removes  bool // whether a row's REMOVE reaches the function
	}{
		{"DispatcherFunction", []string{"ActivitiesTable", "ClientsTable", "DealsTable", "FinancialTable", "VehiclesTable"}, false},
		{"IndexerFunction", []string{"ClientsTable", "DealsTable", "VehiclesTable"}, true},
	} {
		t.Run(tc.function, func(t *testing.T) {
			p, err := streamPoll(tpl, tc.function, local, "cp.json")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, id := range tc.tables {
				want = append(want, local[id])
			}
			if !slices.Equal(p.tables, want) {
				t.Errorf("tables = %v; want %v", p.tables, want)
			}
			if p.options.Timeout <= 0 || p.options.Checkpoints != "cp.json" {
				t.Errorf("options = %+v; want the function's timeout and the checkpoints given", p.options)
			}
			f := p.options.Filters[local["VehiclesTable"]]
			for _, r := range []struct {
				event, sk string
				want      bool
			}{
				{"INSERT", "v#0193", true},
				{"MODIFY", "v#0193", true},
				{"REMOVE", "v#0193", tc.removes},
				{"INSERT", "vw#ativo#corolla#0193", false}, // a word item: the indexer never reads its own writes
				{"INSERT", "plate#ABC1D23", false},
			} {
				if got := f.Match(rec(r.event, r.sk)); got != r.want {
					t.Errorf("filter(%s %s) = %t; want %t", r.event, r.sk, got, r.want)
				}
			}
		})
	}
	if _, err := streamPoll(tpl, "DelivererFunction", local, ""); err == nil {
		t.Error("streamPoll(DelivererFunction) = nil error; want one (it has no stream event source)")
	}
	if _, err := streamPoll(tpl, "IndexerFunction", map[string]string{}, ""); err == nil {
		t.Error("streamPoll(IndexerFunction) without its tables = nil error; want one naming the table")
	}
}
