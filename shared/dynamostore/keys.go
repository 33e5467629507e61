package dynamostore

import (
	"fmt"

	"github.com/patio-dev/patio/shared/patio"
)

// The store's addressing, for tools that must reach its items without going through it (the raw
// baselines of cmd/bench measure the database's own cost with the bare SDK): every record lives in
// its team's partition (partition key attribute "pk" = the team id) under a sort key ("sk") of
// its own. These builders are the ones the store uses, so a tool cannot drift from it.

// PartitionKeyAttr and SortKeyAttr name the key attributes of every resource table.
const (
	PartitionKeyAttr = "pk"
	SortKeyAttr      = "sk"
)

// RecordKey returns the sort key of a record's item (patio.ResourceVehicle, ...).
func RecordKey(resource, id string) (string, error) {
	prefix, err := keyPrefix(resource)
	return prefix + id, err
}

// RecordKeyPrefix returns the sort key prefix shared by a resource's record items.
func RecordKeyPrefix(resource string) (string, error) { return keyPrefix(resource) }

// PlateGuardKey returns the sort key of the guard item reserving a plate (given in either
// spelling's uniqueness key, patio.Vehicle.PlateKey).
func PlateGuardKey(plateKey string) string { return platePrefix + plateKey }

// SortIndex returns how the store reads a resource's list sorted by field: the local index ("" for
// the base table, ordered by id), its sort key attribute, and the prefix of the range that holds
// the records with a value in field.
func SortIndex(resource, field string) (index, attr, valuePrefix string, err error) {
	var sorts map[string]sortIndex
	switch resource {
	case patio.ResourceVehicle:
		sorts = vehicleKind.sorts
	case patio.ResourceClient:
		sorts = clientKind.sorts
	case patio.ResourceDeal:
		sorts = dealKind.sorts
	}
	ix, ok := sorts[field]
	if !ok {
		return "", "", "", fmt.Errorf("dynamostore: %s has no sort %q", resource, field)
	}
	if ix.index == "" {
		prefix, err := keyPrefix(resource)
		return "", SortKeyAttr, prefix, err
	}
	return ix.index, ix.attr, "1#", nil
}

func keyPrefix(resource string) (string, error) {
	switch resource {
	case patio.ResourceVehicle:
		return vehiclePrefix, nil
	case patio.ResourceClient:
		return clientPrefix, nil
	case patio.ResourceDeal:
		return dealPrefix, nil
	}
	return "", fmt.Errorf("dynamostore: unknown resource %q", resource)
}
