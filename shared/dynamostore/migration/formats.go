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

// Counted reports whether a record's mark item (storeformat.Layout.MarkKey; nil for none), as
// the indexer wrote it before it kept one stream mark per team, says the change of sequence seq
// (storeformat.CountSeq) was counted: the record's mark holds that change or a later one. The
// indexer asks it for a team that has no stream mark yet, so that the changes the previous
// release counted are not counted again after the upgrade.
func Counted(mark dynamo.Item, seq int) bool {
	if mark == nil {
		return false
	}
	_, hasRev := mark["rev"]
	_, hasSeq := mark[storeformat.MarkSeqAttr]
	return hasRev && storeformat.IntAttr(mark, "rev") >= (seq+1)/2 || hasSeq && storeformat.IntAttr(mark, storeformat.MarkSeqAttr) >= seq
}
