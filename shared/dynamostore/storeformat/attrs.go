package storeformat

// Key attributes of every table, the revision a conditional write of a record compares, and the
// record a unique value's guard (PlateGuardKey, DocumentGuardKey) reserves it for.
const (
	PartitionAttr  = "pk"
	SortAttr       = "sk"
	RevisionAttr   = "rev"
	GuardOwnerAttr = "owner"
)
