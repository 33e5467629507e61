package migration

import (
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Family returns the family a stored row of a listed kind has, which for a row of a previous
// format is less than what its current format derives: a row written before facets (no
// storeformat.IndexedAttr) has its order item and its status count only; a row of the first
// list format (index keys without the status) has nothing. A write of the row replaces this
// family with its current one, which is how a live write completes a row's family.
func Family(l *storeformat.Layout, stored dynamo.Item) storeformat.Family {
	current := l.Family(stored)
	switch {
	case stored[storeformat.IndexedAttr] != nil:
		return current
	case legacy(stored):
		return storeformat.Family{}
	}
	status := attrString(stored, "status")
	order := l.OrderKey(status, attrString(stored, "id"))
	return storeformat.Family{
		Copies: map[string]dynamo.Item{order: current.Copies[order]},
		Counts: map[storeformat.Count]int{{Attr: status}: 1},
	}
}

// legacy reports a record row of the first list format, whose index sort keys did not start with
// the status ("1#<value>\x01<id>", "0#<id>"): this version's lists do not see it until the
// backfill rewrites it.
func legacy(item dynamo.Item) bool {
	key := attrString(item, "lsi_updated")
	return item[storeformat.IndexedAttr] == nil && (strings.HasPrefix(key, "1#") || strings.HasPrefix(key, "0#"))
}

// Rotation reads a webhook's secrets from a row of the first rotation format, in which a rotation
// kept the new secret in next_secret until rotates_at, and secret was still the old one: it
// returns the current secret and the old one with the end of its grace period. ok is false for
// a row of the current format (no next_secret), whose secret is current.
func Rotation(secret, next string, rotatesAt *string) (current, old string, until patio.Timestamp, ok bool, err error) {
	if next == "" || rotatesAt == nil {
		return secret, "", patio.Timestamp{}, false, nil
	}
	until, err = patio.ParseTimestamp(*rotatesAt)
	return next, secret, until, err == nil, err
}

// MarkIf is the condition on a record's mark item (storeformat.Layout.MarkKey) under which the
// indexer moves the counts of the change of sequence seq (storeformat.CountSeq): only after the
// change it moved last. A mark of the current format holds that change's sequence (seq); one of
// the first format, written before 29 November 2026, its revision (rev), which is the sequence
// halved, rounded down, of the changes of that time. Writing a mark replaces the item, so a mark
// of the first format is gone once the record's next change is counted.
func MarkIf(seq int) (string, []any) {
	return "(attribute_not_exists('rev') OR 'rev' < ?) AND (attribute_not_exists('" + storeformat.MarkSeqAttr + "') OR '" +
		storeformat.MarkSeqAttr + "' < ?)", []any{(seq + 1) / 2, seq}
}
