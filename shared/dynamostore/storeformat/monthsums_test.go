package storeformat_test

import (
	"maps"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// TestFinancialMonthSums pins the keys and attributes of a financial record's month sums
// (docs/storage.md, "Sums"): what a marked row adds, what a write moves, and the count of marked
// rows in the status shards.
func TestFinancialMonthSums(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	row := dynamo.Item{"pk": s("team"), "sk": s("f#id1"), "id": s("id1"), "type": s("revenue"), "category": s("comissao"),
		"status": s("pending"), "due_date": s("2026-03-15"), "amount_cents": n("12345"), "indexed": n("1"), "summed": n("1")}
	want := map[string]map[string]int{"2026-03": {"revenue#comissao#pending": 1, "sum#revenue#comissao#pending": 12345}}
	if got := storeformat.Financial.MonthSumsOf(row); !reflect.DeepEqual(got, want) {
		t.Errorf("MonthSumsOf = %v; want %v", got, want)
	}
	if f := storeformat.Financial.Family(row); f.Counts[storeformat.Count{Attr: "summed"}] != 1 {
		t.Errorf("family counts %v; want summed 1", f.Counts)
	}

	paid := maps.Clone(row)
	paid["status"], paid["due_date"] = s("paid"), s("2026-04-02")
	want = map[string]map[string]int{
		"2026-03": {"revenue#comissao#pending": -1, "sum#revenue#comissao#pending": -12345},
		"2026-04": {"revenue#comissao#paid": 1, "sum#revenue#comissao#paid": 12345},
	}
	if got := storeformat.Financial.MonthSumsDiff(row, paid); !reflect.DeepEqual(got, want) {
		t.Errorf("MonthSumsDiff(move and pay) = %v; want %v", got, want)
	}
	described := maps.Clone(row)
	described["description"] = s("other")
	if got := storeformat.Financial.MonthSumsDiff(row, described); len(got) != 0 {
		t.Errorf("MonthSumsDiff(description) = %v; want nothing", got)
	}
	old := maps.Clone(row)
	delete(old, "summed")
	if got := storeformat.Financial.MonthSumsOf(old); got != nil {
		t.Errorf("MonthSumsOf(a row not marked) = %v; want nil", got)
	}
	if got := storeformat.Financial.MonthSumsDiff(old, row); !reflect.DeepEqual(got, storeformat.Financial.MonthSumsOf(row)) {
		t.Errorf("MonthSumsDiff(marking) = %v; want the row's sums", got)
	}

	if got := storeformat.MonthSumKey("2026-03", 2); got != "nm#2026-03#2" {
		t.Errorf("MonthSumKey = %q", got)
	}
	if lo, hi := storeformat.MonthSumRange("2026-01", "2026-03"); lo != "nm#2026-01#" || hi != "nm#2026-03$" {
		t.Errorf("MonthSumRange = %q, %q", lo, hi)
	}
	if lo, hi := storeformat.CounterRange(""); !(hi < storeformat.MonthSumPrefix) || lo > hi {
		t.Errorf("the status shards' range %q..%q holds the month sums' keys", lo, hi)
	}
	if m, ok := storeformat.MonthOfSumKey("nm#2026-03#2"); !ok || m != "2026-03" {
		t.Errorf("MonthOfSumKey = %q, %v", m, ok)
	}
	if values, sum := storeformat.MonthTotalOf("sum#revenue#comissao#paid"); !sum || !reflect.DeepEqual(values, []string{"revenue", "comissao", "paid"}) {
		t.Errorf("MonthTotalOf = %v, %v", values, sum)
	}
}
