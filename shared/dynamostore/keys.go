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

// ListRange returns the first key range the store reads for a page of a resource's list sorted by
// field (created_at, price, ...), for one status the list shows: the local index ("" for the base
// table's order items, which serve creation order), its sort key attribute, and the inclusive
// bounds of the range holding that status's records that have a value in field (docs/storage.md,
// "Lists at any size").
func ListRange(resource, field, status string) (index, attr, lo, hi string, err error) {
	r, err := listed(resource)
	if err != nil {
		return "", "", "", "", err
	}
	if !r.sortable(field) {
		return "", "", "", "", fmt.Errorf("dynamostore: %s has no sort %q", resource, field)
	}
	o := r.order(field)
	base := status + "#"
	if o.index == "" {
		base = r.orderPrefix() + base
	}
	seg := o.ranges(base, nil)[0]
	return o.index, o.attr, seg.lo, seg.hi, nil
}

// OrderKey returns the sort key of a record's order item, the copy of its row that places it in
// creation order among the records of its status (within ListRange's bounds for created_at).
func OrderKey(resource, status, id string) (string, error) {
	r, err := listed(resource)
	if err != nil {
		return "", err
	}
	return r.orderPrefix() + status + "#" + id, nil
}

// CountKey returns the sort key of a team's counter item number shard (0 ≤ shard < CountShards),
// which holds one number attribute per status, named after the status.
func CountKey(shard int) string { return countKeyOf(shard) }

// listedKind is what ListRange and OrderKey need of a resource's records.
type listedKind interface {
	sortable(field string) bool
	order(sort string) order
	orderPrefix() string
}

func (r records[T, R, Q]) sortable(field string) bool { _, ok := r.k.sorts[field]; return ok }

func (r records[T, R, Q]) orderPrefix() string { return r.k.list.letter + "o#" }

func listed(resource string) (listedKind, error) {
	switch resource {
	case patio.ResourceVehicle:
		return records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{k: &vehicleKind}, nil
	case patio.ResourceClient:
		return records[patio.Client, clientRow, patio.ClientQuery]{k: &clientKind}, nil
	case patio.ResourceDeal:
		return records[patio.Deal, dealRow, patio.DealQuery]{k: &dealKind}, nil
	}
	return nil, fmt.Errorf("dynamostore: unknown resource %q", resource)
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

// CountShards is the number of counter items a team's maintained counts are spread over in each
// table, every item holding the counts of all statuses, so that concurrent writers of one team
// rarely update the same one (docs/storage.md).
const CountShards = countShards
