package dynamostore

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// The audit log lives in AuditTable: one partition per team (pk the team's id), entries by time (sk
// <unix ms>#<id>), and two local indexes, by_actor (lsi_actor <actor>#<ms>#<id>) and by_action
// (lsi_action <action>#<ms>#<id>), so that a page filtered by person or by action reads what it
// shows; a global index, by_target (gsi_target <team>#<target>, sk), reads one record's history
// the same way (a global index, because one can be added to a table in place). The table's TTL
// removes an entry patio.AuditRetention after it was written.

// auditRow is an audit entry as stored.
type auditRow struct {
	Team      string   `dynamo:"pk,hash"`
	SK        string   `dynamo:"sk,range"`
	ID        string   `dynamo:"id"`
	ActorKind string   `dynamo:"actor_kind"`
	ActorID   string   `dynamo:"actor_id"`
	IP        string   `dynamo:"ip,omitempty"`
	RequestID string   `dynamo:"request_id,omitempty"`
	Action    string   `dynamo:"action"`
	Target    string   `dynamo:"target"`
	Fields    []string `dynamo:"fields"`
	At        string   `dynamo:"at"`
	LSIActor  string   `dynamo:"lsi_actor"`
	LSIAction string   `dynamo:"lsi_action"`
	GSITarget string   `dynamo:"gsi_target,omitempty"`
	ExpiresAt int64    `dynamo:"expires_at"`
}

func (s *core) audit() dynamo.Table { return s.db.Dynamo.Table(s.db.Tables.Audit) }

func (r auditRow) entry() (patio.AuditEntry, error) {
	at, err := patio.ParseTimestamp(r.At)
	fields := r.Fields
	if fields == nil {
		fields = []string{}
	}
	return patio.AuditEntry{ID: r.ID, TeamID: r.Team, Action: r.Action, Target: r.Target, Fields: fields, At: at,
		Actor: patio.Actor{Kind: r.ActorKind, ID: r.ActorID, IP: r.IP, RequestID: r.RequestID}}, err
}

// newAuditRow is an entry's row.
func newAuditRow(e patio.AuditEntry) auditRow {
	stamp := fmt.Sprintf("%013d#%s", e.At.Time().UnixMilli(), e.ID)
	fields := e.Fields
	if fields == nil {
		fields = []string{}
	}
	row := auditRow{Team: e.TeamID, SK: stamp, ID: e.ID, ActorKind: e.Actor.Kind, ActorID: e.Actor.ID, IP: e.Actor.IP,
		RequestID: e.Actor.RequestID, Action: e.Action, Target: e.Target, Fields: fields, At: e.At.String(),
		LSIActor: e.Actor.ID + "#" + stamp, LSIAction: e.Action + "#" + stamp,
		ExpiresAt: e.At.Time().Add(patio.AuditRetention).Unix()}
	if e.Target != "" {
		row.GSITarget = e.TeamID + "#" + e.Target
	}
	return row
}

// RecordAudit implements patio.Auditor.
func (s *Store) RecordAudit(ctx context.Context, e patio.AuditEntry) error {
	return storecore.Wrap(s.audit().Put(newAuditRow(e)).Run(ctx), "record audit entry", e.ID)
}

// RecordAudits implements delivery.Auditor: BatchWriteItem, 25 entries a call (the batch retries
// what DynamoDB leaves unprocessed).
func (s *Store) RecordAudits(ctx context.Context, es []patio.AuditEntry) error {
	rows := make([]any, len(es))
	for i, e := range es {
		rows[i] = newAuditRow(e)
	}
	_, err := s.audit().Batch().Write().Put(rows...).Run(ctx)
	return storecore.Wrap(err, "record audit entries", fmt.Sprint(len(es)))
}

// AuditPage implements patio.AuditLog: one Query of the index the filters choose (the action is
// a filter of the person's index when both are given; a record's entries are by_target's),
// newest first.
func (s *Store) AuditPage(ctx context.Context, teamID string, q patio.AuditQuery) ([]patio.AuditEntry, string, error) {
	index, attr, prefix := "", "sk", ""
	switch {
	case q.Actor != "":
		index, attr, prefix = "by_actor", "lsi_actor", q.Actor+"#"
	case q.Action != "":
		index, attr, prefix = "by_action", "lsi_action", q.Action+"#"
	}
	lo, hi := prefix+ms(q.Since, 0), prefix+ms(q.Until, 9999999999999)+"#~"
	if q.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
		if err != nil || !strings.HasPrefix(string(raw), prefix) || string(raw) < lo {
			return nil, "", patio.Invalidf("cursor is not valid for this search")
		}
		hi = min(hi, string(raw))
	}
	hash, key := "pk", teamID
	if q.Target != "" {
		index, hash, key = "by_target", "gsi_target", teamID+"#"+q.Target
	}
	query := s.audit().Get(hash, key).Range(attr, dynamo.Between, lo, hi).Order(dynamo.Descending).Limit(q.Limit + 2)
	if index != "" {
		query = query.Index(index)
	}
	if q.Actor != "" && q.Action != "" {
		query = query.Filter("'action' = ?", q.Action)
	}
	var rows []auditRow
	if err := query.All(ctx, &rows); err != nil {
		return nil, "", storecore.Wrap(err, "read audit log", teamID)
	}
	sortValue := func(r auditRow) string {
		switch attr {
		case "lsi_actor":
			return r.LSIActor
		case "lsi_action":
			return r.LSIAction
		}
		return r.SK
	}
	if q.Cursor != "" && len(rows) > 0 && sortValue(rows[0]) == hi {
		rows = rows[1:] // the cursor's own entry, shown on the page before
	}
	next := ""
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(sortValue(rows[len(rows)-1])))
	}
	out, err := storecore.DecodeRows(rows, auditRow.entry)
	return out, next, storecore.Wrap(err, "decode audit log", teamID)
}

// ms formats t as the zero-padded unix milliseconds of the sort keys; zero t gives def.
func ms(t time.Time, def int64) string {
	if t.IsZero() {
		return fmt.Sprintf("%013d", def)
	}
	return fmt.Sprintf("%013d", t.UnixMilli())
}
