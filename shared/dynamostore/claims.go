package dynamostore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// claimRow is an Idempotency-Key claimed by a creation, in AccountsTable: pk "idem#<team>#<key>",
// sk "idem". expires_at (unix seconds) is the table's TTL attribute; a claim past it is free again
// even before DynamoDB removes it (TTL deletes within days, not at once).
type claimRow struct {
	PK          string `dynamo:"pk,hash"`
	SK          string `dynamo:"sk,range"`
	Fingerprint string `dynamo:"fingerprint"`
	Record      string `dynamo:"record"`
	ExpiresAt   int64  `dynamo:"expires_at"`
}

func claimPK(teamID, key string) string { return "idem#" + teamID + "#" + key }

// Claimed returns the claim of a team's Idempotency-Key (strongly consistent), or KindNotFound.
func (s *Store) Claimed(ctx context.Context, teamID, key string) (patio.Claim, error) {
	var row claimRow
	err := s.claims().Get("pk", claimPK(teamID, key)).Range("sk", dynamo.Equal, "idem").Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.Claim{}, storecore.Wrap(storecore.NotFound(err, "idempotency key"), "get idempotency key of team", teamID)
	}
	return patio.Claim{TeamID: teamID, Key: key, Fingerprint: row.Fingerprint, Record: json.RawMessage(row.Record),
		Expires: time.Unix(row.ExpiresAt, 0).UTC()}, nil
}

// claimOp is the put that claims c for the record rec, in the creation's transaction: it fails
// (patio.ErrClaimTaken) while another claim of the key is live.
func (s *core) claimOp(c patio.Claim, rec any, now time.Time) (storecore.Op, error) {
	data, err := json.Marshal(rec)
	if err != nil {
		return storecore.Op{}, err
	}
	row := claimRow{PK: claimPK(c.TeamID, c.Key), SK: "idem", Fingerprint: c.Fingerprint, Record: string(data),
		ExpiresAt: c.Expires.Unix()}
	return storecore.Op{Put: s.claims().Put(row).If("attribute_not_exists(pk) OR 'expires_at' <= ?", now.Unix()),
		Failed: patio.ErrClaimTaken}, nil
}

// claims is AccountsTable, where the claims live beside the accounts.
func (s *core) claims() dynamo.Table { return s.db.Dynamo.Table(s.db.Tables.Accounts) }
