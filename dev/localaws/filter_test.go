package localaws_test

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/dev/localaws"
)

// The local pollers filter stream records as Lambda filters them for the dispatcher: a vehicle's
// own row, inserted or modified, passes; its list items, its guards and its removal do not. For
// the indexer, whose pattern has no eventName, the row's removal passes too.
func TestFilter(t *testing.T) {
	f, err := localaws.ParseFilter([]string{`{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"sk": {"S": [{"prefix": "v#"}]}}}}`})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(event, sk string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventName: event, Change: events.DynamoDBStreamRecord{
			Keys: map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("team"), "sk": events.NewStringAttribute(sk)}}}
	}
	for _, tc := range []struct {
		event, sk string
		want      bool
	}{
		{"INSERT", "v#0193", true},
		{"MODIFY", "v#0193", true},
		{"REMOVE", "v#0193", false},
		{"INSERT", "vo#ativo#0193", false},
		{"INSERT", "plate#ABC1D23", false},
		{"MODIFY", "n#3", false},
	} {
		if got := f.Match(rec(tc.event, tc.sk)); got != tc.want {
			t.Errorf("Match(%s %s) = %t; want %t", tc.event, tc.sk, got, tc.want)
		}
	}
	if (localaws.Filter)(nil).Match(rec("REMOVE", "x")) != true {
		t.Error("a nil filter refused a record; want every record to pass")
	}
	// The indexer's pattern names the key alone: a row's removal passes too (its words are
	// deleted), and still nothing but the rows.
	keyOnly, err := localaws.ParseFilter([]string{`{"dynamodb": {"Keys": {"sk": {"S": [{"prefix": "v#"}]}}}}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		event, sk string
		want      bool
	}{
		{"INSERT", "v#0193", true},
		{"MODIFY", "v#0193", true},
		{"REMOVE", "v#0193", true},
		{"INSERT", "vw#ativo#corolla#0193", false},
		{"REMOVE", "vw#ativo#corolla#0193", false},
		{"INSERT", "plate#ABC1D23", false},
	} {
		if got := keyOnly.Match(rec(tc.event, tc.sk)); got != tc.want {
			t.Errorf("key-only Match(%s %s) = %t; want %t", tc.event, tc.sk, got, tc.want)
		}
	}
	if _, err := localaws.ParseFilter([]string{`{"eventName": [{"anything-but": ["REMOVE"]}]}`}); err == nil {
		t.Error("ParseFilter(anything-but) = nil error; want the operators the local stack does not know refused")
	}
}
