package dynamostore

import (
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Encoded is a new record as the store writes it at revision 1: its table, its kind's layout,
// its row (with what storeformat.Layout.Item adds) and the guard items of its unique values. The
// family, counts and marks that go with it follow from the row through the layout.
type Encoded struct {
	Table          string
	Layout         *storeformat.Layout
	TeamID, ID, As string // As names the record in errors ("vehicle")
	Row            dynamo.Item
	Guards         []dynamo.Item
}

// Encode returns rec (a patio.Vehicle, Client, Deal, Activity or FinancialRecord) as the store
// writes it at revision 1 in the tables named, for writers of many new records at once (the
// bench's seeding, dev/storeseed) that must leave exactly what the store's own writes leave.
func Encode(tables Tables, rec any) (Encoded, error) {
	switch r := rec.(type) {
	case patio.Vehicle:
		return encode(tables, &vehicleKind, r)
	case patio.Client:
		return encode(tables, &clientKind, r)
	case patio.Deal:
		return encode(tables, &dealKind, r)
	case patio.Activity:
		return encode(tables, &activityKind, r)
	case patio.FinancialRecord:
		return encode(tables, &financialKind, r)
	}
	return Encoded{}, fmt.Errorf("dynamostore: Encode of %T: not a listed record type", rec)
}

func encode[T, R, Q any](tables Tables, k *kind[T, R, Q], rec T) (Encoded, error) {
	rec = k.withRevision(rec, 1)
	teamID, id := k.Key(rec)
	row, err := records[T, R, Q]{k: k}.rowItem(rec)
	if err != nil {
		return Encoded{}, fmt.Errorf("dynamostore: encode %s %s: %w", k.What, id, err)
	}
	e := Encoded{Table: k.table(tables), Layout: k.Layout, TeamID: teamID, ID: id, As: k.What, Row: row}
	for _, g := range k.guards(rec) {
		item, err := dynamo.MarshalItem(guardRow{PK: teamID, SK: g.sk, Owner: id})
		if err != nil {
			return Encoded{}, err
		}
		e.Guards = append(e.Guards, item)
	}
	return e, nil
}
