package migration_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// A stored row's family is what its format wrote: the whole family for a current row, all but the
// indexer's word and bucket counts for a row written before them, its order item and status count
// for a row written before facets, nothing for a row of the first list
// format (the store replaces that family when it writes the row, which is how a write completes
// it); the integration tests of shared/dynamostore prove the backfill and live writes on them.
func TestFamilyOfEachFormat(t *testing.T) {
	at, err := patio.ParseTimestamp("2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatal(err)
	}
	value := money.Cents(150000)
	row, err := storeformat.DealItem(patio.Deal{ID: "id1", TeamID: "team", Title: "Civic", ClientID: "c1", Value: &value,
		Phase: "proposta", Status: "aberto", CreatedAt: at, UpdatedAt: at, Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	uncounted := maps.Clone(row)
	delete(uncounted, storeformat.CountedAttr)
	counted := maps.Clone(uncounted)
	delete(counted, storeformat.IndexedAttr)
	legacy := maps.Clone(counted)
	for name, v := range legacy {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(name, "lsi_") {
			legacy[name] = &types.AttributeValueMemberS{Value: strings.TrimPrefix(s.Value, "aberto#")}
		}
	}
	for _, tc := range []struct {
		name           string
		row            dynamo.Item
		copies, counts []string
		words          int
	}{
		{"current", row, []string{"df#client_id=c1#aberto#id1", "df#phase=proposta#aberto#id1", "do#aberto#id1"},
			[]string{"/aberto", "/indexed", "/phase=proposta#aberto", "/sum#phase=proposta#aberto", "/summed",
				"client_id=c1/aberto", "counted/aberto", "q=civic/aberto", "r=value:2:06:15/aberto", "r=value:3:06:150/aberto", "r=value:4:06:1500/aberto"}, 2},
		{"written before word and bucket counts", uncounted, []string{"df#client_id=c1#aberto#id1", "df#phase=proposta#aberto#id1", "do#aberto#id1"},
			[]string{"/aberto", "/indexed", "/phase=proposta#aberto", "/sum#phase=proposta#aberto", "/summed", "client_id=c1/aberto"}, 2},
		{"written before facets", counted, []string{"do#aberto#id1"}, []string{"/aberto"}, 0},
		{"first list format", legacy, nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := migration.Family(storeformat.Deals, tc.row)
			if got := slices.Sorted(maps.Keys(f.Copies)); !slices.Equal(got, tc.copies) {
				t.Errorf("copies %v; want %v", got, tc.copies)
			}
			var counts []string
			for c := range f.Counts { // "<counter item>/<attribute>", the status shards' item ""
				counts = append(counts, c.Item+"/"+c.Attr)
			}
			if slices.Sort(counts); !slices.Equal(counts, tc.counts) {
				t.Errorf("counts %v; want %v", counts, tc.counts)
			}
			if len(f.Words) != tc.words {
				t.Errorf("word items %v; want %d", f.Words, tc.words)
			}
		})
	}
}

// A webhook of the first rotation format reads as the current format does: the new secret
// current, the old one signing until the rotation's end.
func TestRotation(t *testing.T) {
	until := "2026-03-01T10:00:00Z"
	current, old, end, ok, err := migration.Rotation("whsec_old", "whsec_new", &until)
	if err != nil || !ok || current != "whsec_new" || old != "whsec_old" || end.String() != until {
		t.Errorf("Rotation(first format) = %q, %q, %v, %v, %v; want the new secret current, the old one until %s",
			current, old, end, ok, err, until)
	}
	current, _, _, ok, err = migration.Rotation("whsec_now", "", nil)
	if err != nil || ok || current != "whsec_now" {
		t.Errorf("Rotation(current format) = %q, %v, %v; want the secret as it is", current, ok, err)
	}
	bad := "yesterday"
	if _, _, _, _, err := migration.Rotation("whsec_old", "whsec_new", &bad); err == nil {
		t.Errorf("Rotation with an unreadable rotates_at = nil error; want it refused")
	}
}
