package storeformat_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// TestDealFamily pins the keys a deal's row and family are stored under (docs/storage.md): the
// integration tests of shared/dynamostore prove the store reads them back.
func TestDealFamily(t *testing.T) {
	at, err := patio.ParseTimestamp("2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatal(err)
	}
	value := money.Cents(150000)
	d := patio.Deal{ID: "id1", TeamID: "team", Title: "Civic", ClientID: "c1", Value: &value,
		Phase: "proposta", Status: "aberto", CreatedAt: at, UpdatedAt: at, Revision: 1}
	row, err := storeformat.DealItem(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, attr := range []string{"words", "indexed", "summed", "counted", "lsi_value", "rev"} {
		if row[attr] == nil {
			t.Errorf("row has no %s: %v", attr, row)
		}
	}
	f := storeformat.Deals.Family(row)
	if got, want := slices.Sorted(maps.Keys(f.Copies)), []string{
		"df#client_id=c1#aberto#id1", "df#phase=proposta#aberto#id1", "do#aberto#id1",
	}; !slices.Equal(got, want) {
		t.Errorf("copies %v, want %v", got, want)
	}
	// Its word, and its value's bucket of its first two digits (R$ 1.500,00: the values from
	// R$ 1.500 to R$ 1.599,99), the pseudo-word of the range's page items.
	if got, want := slices.Sorted(maps.Keys(f.Words)), []string{"dw#aberto#civic#id1", "dw#aberto#~value:2:06:15#id1"}; !slices.Equal(got, want) {
		t.Errorf("word items %v, want %v", got, want)
	}
	want := map[storeformat.Count]int{
		{Attr: "aberto"}: 1, {Attr: "indexed"}: 1, {Attr: "summed"}: 1,
		{Attr: "phase=proposta#aberto"}: 1, {Attr: "sum#phase=proposta#aberto"}: 150000,
		{Item: "client_id=c1", Attr: "aberto"}: 1,
		// The indexer's counts of its word and its value's buckets (1,500.00 reais: 150,000 cents).
		{Item: "counted", Attr: "aberto"}: 1, {Item: "q=civic", Attr: "aberto"}: 1,
		{Item: "r=value:2:06:15", Attr: "aberto"}: 1, {Item: "r=value:3:06:150", Attr: "aberto"}: 1,
		{Item: "r=value:4:06:1500", Attr: "aberto"}: 1,
	}
	if !maps.Equal(f.Counts, want) {
		t.Errorf("counts %v, want %v", f.Counts, want)
	}
	if got := storeformat.CounterKey("client_id=c1", 2); got != "nf#client_id=c1#2" {
		t.Errorf("CounterKey = %q", got)
	}
	if item, ok := storeformat.CounterOf("nf#client_id=c1#2"); !ok || item != "client_id=c1" {
		t.Errorf("CounterOf = %q, %v", item, ok)
	}
}

func TestIsWordKey(t *testing.T) {
	tests := []struct {
		name string
		sk   string
		want bool
	}{
		{"a word item", "dw#aberto#civic#id1", true},
		{"a bound of a read of a status's words", storeformat.Deals.WordPrefix("aberto"), true},
		{"a row", storeformat.Deals.RowKey("id1"), false},
		{"an order item", storeformat.Deals.OrderKey("aberto", "id1"), false},
		{"another kind's word item", "vw#ativo#civic#id1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := storeformat.Deals.IsWordKey(tt.sk); got != tt.want {
				t.Errorf("IsWordKey(%q) = %v; want %v", tt.sk, got, tt.want)
			}
		})
	}
}
