package dynamostore

import (
	"context"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// PutUnsummedFinancial stores a financial record the way the previous version did: its row and
// whole family, without the mark of its amount in the month sums, and in none of them.
func PutUnsummedFinancial(t *testing.T, s *Store, f patio.FinancialRecord) {
	t.Helper()
	r := s.Financial().(financialRecords)
	row, err := r.rowItem(f)
	if err != nil {
		t.Fatal(err)
	}
	delete(row, storeformat.SummedAttr)
	ops := []storecore.Op{{Put: r.table().Put(row)}}
	ops = append(ops, lists.FamilyOps(r.table(), f.TeamID, storeformat.Family{}, r.k.Layout.Family(row))...)
	if err := s.db.Run(context.Background(), ops); err != nil {
		t.Fatal(err)
	}
}
