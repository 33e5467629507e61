package patio

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Actor kinds: a person signed in to the console, a cloud operator using the operators' tool, or
// an integration calling the public API with a key.
const (
	ActorUser     = "user"
	ActorOperator = "operator"
	ActorKey      = "key"
)

// Actor is who makes a change, for the audit log: the console's signed-in person, an operator or
// an API key, with the address and request id the change came with.
type Actor struct {
	Kind string `json:"kind"`
	// ID is the person's email, the operator's name, or an API key's name and hint
	// ("Marketplace (dk_live_AbCd)").
	ID        string `json:"id"`
	IP        string `json:"ip,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

type actorKey struct{}

// WithActor returns ctx carrying the actor of the changes made with it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf returns the actor ctx carries; without one, an operator named "unknown".
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Kind: ActorOperator, ID: "unknown"}
}

// AuditRetention is how long the audit log keeps an entry.
const AuditRetention = 366 * 24 * time.Hour

// AuditEntry is one change in a team's audit log: who made it, what action on which record, the
// names of the fields it touched (never their values), and when.
type AuditEntry struct {
	ID     string    `json:"id"`
	TeamID string    `json:"team_id"`
	Actor  Actor     `json:"actor"`
	Action string    `json:"action"`
	Target string    `json:"target"`
	Fields []string  `json:"fields"`
	At     Timestamp `json:"at"`
}

// Auditor records audit entries.
type Auditor interface {
	// RecordAudit stores an entry.
	RecordAudit(ctx context.Context, e AuditEntry) error
}

// Audit records that the actor of ctx made action on target (a record's kind and id, "webhook:<id>")
// in team teamID, touching fields. With a nil Auditor it records nothing. A failure to record is
// KindInternal: the change itself is made by then.
func Audit(ctx context.Context, a Auditor, teamID, action, target string, fields ...string) error {
	if a == nil {
		return nil
	}
	id, now := NewID()
	if fields == nil {
		fields = []string{}
	}
	e := AuditEntry{ID: id, TeamID: teamID, Actor: ActorOf(ctx), Action: action, Target: target, Fields: fields,
		At: NewTimestamp(now)}
	if err := a.RecordAudit(ctx, e); err != nil {
		return Internal(err)
	}
	return nil
}

// Audit page sizes.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 200
)

// AuditQuery selects a page of a team's audit log, newest first: entries of one actor (by ID) and
// one action when set, or of one record (Target, as entries name it: "vehicle:<id>"), within
// [Since, Until] (zero: open), after Cursor.
type AuditQuery struct {
	Actor, Action string
	Target        string
	Since, Until  time.Time
	Limit         int
	Cursor        string
}

// Check returns the query with its defaults, or KindInvalid.
func (q AuditQuery) Check() (AuditQuery, error) {
	var p Problems
	switch {
	case q.Limit == 0:
		q.Limit = DefaultAuditLimit
	case q.Limit < 1 || q.Limit > MaxAuditLimit:
		p.Add(InQuery, "limit", "limit must be between 1 and %d", MaxAuditLimit)
	}
	if q.Target != "" && (q.Actor != "" || q.Action != "") {
		p.Add(InQuery, "target", "target cannot be combined with actor or action")
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		p.Add(InQuery, "until", "until must not be before since")
	}
	return q, p.Err()
}

// AuditLog reads a team's audit log.
type AuditLog interface {
	// AuditPage returns one page of the team's entries and the cursor of the next ("" on the last).
	AuditPage(ctx context.Context, teamID string, q AuditQuery) ([]AuditEntry, string, error)
}

// KeyActor is the actor of the changes a request made with key k makes: the key by its name and,
// so that two keys of one name differ, its hint (or the start of its id).
func KeyActor(k APIKey, requestID string) Actor {
	tell := k.Hint
	if tell == "" {
		tell = k.ID[:min(8, len(k.ID))]
	}
	return Actor{Kind: ActorKey, ID: k.Name + " (" + tell + ")", RequestID: requestID}
}

// auditVerbs names, per resource and by the status a change moves a record to, what the audit
// log calls that change ("completed" → "complete": activity.complete); any other change is
// "update".
var auditVerbs = map[string]map[string]string{
	ResourceVehicle: {string(VehicleArchived): "archive", string(VehicleSold): "sell"},
	ResourceClient:  {string(ClientInactive): "deactivate", string(ClientActive): "restore"},
	ResourceDeal:    {string(DealWon): "win", string(DealLost): "lose", string(DealArchived): "archive", string(DealOpen): "reopen"},
	ResourceActivity: {string(ActivityInProgress): "start", string(ActivityCompleted): "complete", string(ActivityCancelled): "cancel",
		string(ActivityPending): "reopen"},
	ResourceFinancial: {string(FinancialPaid): "pay", string(FinancialCancelled): "cancel", string(FinancialPending): "reopen"},
}

// statusVerb is the verb of a change of a resource's record to next, which changed the fields
// changed: the status's verb when the status changed to one that has one, "" otherwise.
func statusVerb(resource string, changed []string, next any) string {
	if !slices.Contains(changed, "status") {
		return ""
	}
	var st struct {
		Status string `json:"status"`
	}
	if b, err := json.Marshal(next); err != nil || json.Unmarshal(b, &st) != nil {
		return ""
	}
	return auditVerbs[resource][st.Status]
}

// ChangeAudit is the audit entry of a change of a resource's record from old (nil for a creation)
// to next, as the use cases write it when they audit a change themselves: <resource>.create with
// the fields set, or <resource>.<verb> with the fields changed, at the record's updated_at. ok is
// false for a write that changed no field. The entry has no id and no actor.
func ChangeAudit(teamID, resource string, old, next any) (e AuditEntry, ok bool) {
	fields := jsonFields(next)
	var id string
	var at Timestamp
	if json.Unmarshal(fields["id"], &id) != nil || json.Unmarshal(fields["updated_at"], &at) != nil {
		return AuditEntry{}, false
	}
	e = AuditEntry{TeamID: teamID, Target: resource + ":" + id, At: at, Action: resource + ".create"}
	if old == nil {
		e.Fields = fieldsOf(next)
		return e, true
	}
	e.Fields = changedFields(old, next)
	if len(e.Fields) == 0 {
		return AuditEntry{}, false
	}
	e.Action = resource + ".update"
	if v := statusVerb(resource, e.Fields, next); v != "" {
		e.Action = resource + "." + v
	}
	return e, true
}
