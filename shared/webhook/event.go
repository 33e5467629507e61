package webhook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// APIVersion is the payload's api_version.
const APIVersion = "v1"

// Resources whose changes become events.
const (
	ResourceVehicle = patio.ResourceVehicle
	ResourceClient  = patio.ResourceClient
	ResourceDeal    = patio.ResourceDeal
	// The dashboard modules, which the public API does not serve.
	ResourceActivity  = patio.ResourceActivity
	ResourceFinancial = patio.ResourceFinancial
)

// The event types this service emits (docs/webhooks.md, Event catalogue).
const (
	VehicleCreated      = "vehicle.created"
	VehicleUpdated      = "vehicle.updated"
	VehicleSold         = "vehicle.sold"
	VehiclePhaseChanged = "vehicle.phase_changed"
	VehiclePriceChanged = "vehicle.price_changed"
	VehicleRemoved      = "vehicle.removed"
	DealCreated         = "deal.created"
	DealUpdated         = "deal.updated"
	DealPhaseChanged    = "deal.phase_changed"
	DealWon             = "deal.won"
	DealLost            = "deal.lost"
	ClientCreated       = "client.created"
	ClientUpdated       = "client.updated"
	ClientDeactivated   = "client.deactivated"
	ActivityCreated     = "activity.created"
	ActivityCompleted   = "activity.completed"
	ActivityDueSoon     = "activity.due_soon"
	ActivityOverdue     = "activity.overdue"
	FinancialCreated    = "financial.created"
	FinancialPaid       = "financial.paid"
	FinancialOverdue    = "financial.overdue"
)

// EventTypes lists every event type a webhook may subscribe to.
var EventTypes = []string{
	VehicleCreated, VehicleUpdated, VehicleSold, VehiclePhaseChanged, VehiclePriceChanged, VehicleRemoved,
	DealCreated, DealUpdated, DealPhaseChanged, DealWon, DealLost,
	ClientCreated, ClientUpdated, ClientDeactivated,
	ActivityCreated, ActivityCompleted, ActivityDueSoon, ActivityOverdue,
	FinancialCreated, FinancialPaid, FinancialOverdue,
}

// quiet resources fire no <resource>.updated nor field events: activities and financial records
// fire only their created, status and timed events.
var quiet = map[string]bool{ResourceActivity: true, ResourceFinancial: true}

// Change is one write to a resource record, as a table stream reports it.
type Change struct {
	// SourceID identifies the stream record (its eventID); event ids derive from it.
	SourceID string
	// Resource is ResourceVehicle, ResourceClient or ResourceDeal.
	Resource string
	TeamID   string
	// Old and New are the API representations (patio.Vehicle, patio.Client, patio.Deal) before and
	// after the write; Old is nil for an insert.
	Old, New any
	// By is the API key (patio.KeyActor's ID) whose request made the change: "" for a change made
	// in the console or by an operator, which is audited where it is made.
	By string
	// At is when the stream saw the change (approximate). An event's created_at is the record's own
	// time (its created_at on creation, else its updated_at); At stands in only for a record
	// without one.
	At time.Time
	// Written is when the change was written, to the millisecond (zero when its row does not say):
	// what a webhook's creation is compared with (Webhook.Receives), where the record's own times
	// are to the second.
	Written time.Time
}

// Event is one event of a change, before it is addressed to a webhook.
type Event struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	APIVersion string          `json:"api_version"`
	CreatedAt  patio.Timestamp `json:"created_at"`
	Data       Data            `json:"data"`
	TeamID     string          `json:"team_id"`
	// Recorded is when the change that made the event was written: CreatedAt, except for a timed
	// event, whose CreatedAt is its scheduled instant and which is recorded when the timer fires
	// it (the stream's time of the change), possibly later. It decides which webhooks existed to
	// receive the event (Webhook.Receives).
	Recorded time.Time `json:"-"`
}

// Data is an event's data member: the object after the change and, on updates, the previous values
// of the fields that changed (null on creation events).
type Data struct {
	Object             json.RawMessage            `json:"object"`
	PreviousAttributes map[string]json.RawMessage `json:"previous_attributes"`
}

// Payload is the body POSTed to one webhook, its members in this fixed order: id, type,
// api_version, created_at, data, team_id, webhook_id.
func (e Event) Payload(webhookID string) ([]byte, error) {
	body, err := json.Marshal(struct {
		ID         string          `json:"id"`
		Type       string          `json:"type"`
		APIVersion string          `json:"api_version"`
		CreatedAt  patio.Timestamp `json:"created_at"`
		Data       Data            `json:"data"`
		TeamID     string          `json:"team_id"`
		WebhookID  string          `json:"webhook_id"`
	}{e.ID, e.Type, e.APIVersion, e.CreatedAt, e.Data, e.TeamID, webhookID})
	if err != nil {
		return nil, patio.Internal(fmt.Errorf("webhook: encode payload of %s: %w", e.ID, err))
	}
	return body, nil
}

// EventID returns the id of the event of type typ derived from the change sourceID: "evt_" and 32
// hex digits of a SHA-256 of both, so that re-processing a stream record yields the same ids.
func EventID(sourceID, typ string) string {
	sum := sha256.Sum256([]byte(sourceID + "\x00" + typ))
	return "evt_" + hex.EncodeToString(sum[:16])
}

// statusEvents names, per resource, the event fired when status becomes a value.
var statusEvents = map[string]map[string]string{
	ResourceVehicle: {string(patio.VehicleSold): VehicleSold, string(patio.VehicleArchived): VehicleRemoved},
	ResourceDeal:    {string(patio.DealWon): DealWon, string(patio.DealLost): DealLost},
	ResourceClient:  {string(patio.ClientInactive): ClientDeactivated},
	// The dashboard modules.
	ResourceActivity:  {string(patio.ActivityCompleted): ActivityCompleted},
	ResourceFinancial: {string(patio.FinancialPaid): FinancialPaid},
}

// fieldEvents names, per resource, the event fired when a field changes.
var fieldEvents = map[string][]struct{ field, typ string }{
	ResourceVehicle: {{"price", VehiclePriceChanged}, {"phase", VehiclePhaseChanged}},
	ResourceDeal:    {{"phase", DealPhaseChanged}},
}

// Derive returns the events of a change: an insert is <resource>.created; a real change is
// <resource>.updated plus the specific events of the fields and status it changed. A write that
// changed nothing but updated_at and revision (or storage-only attributes) has no events; neither
// has a removal (records are only ever soft-deleted). Events come in a fixed order: created or
// updated first, then the specific ones.
func Derive(c Change) ([]Event, error) {
	if _, ok := statusEvents[c.Resource]; !ok {
		return nil, patio.Internal(fmt.Errorf("webhook: unknown resource %q", c.Resource))
	}
	if c.New == nil {
		return nil, nil
	}
	newFields, object, err := fields(c.New)
	if err != nil {
		return nil, err
	}
	mk := maker{c: c, object: object, at: changeTime(newFields, c.Old == nil, c.At)}
	if c.Old == nil {
		return []Event{mk.event(c.Resource+".created", nil)}, nil
	}
	oldFields, _, err := fields(c.Old)
	if err != nil {
		return nil, err
	}
	prev, real := previous(oldFields, newFields)
	if !real {
		// A change of no representation field may still be a timed event firing.
		var events []Event
		for _, te := range timedEvents(c) {
			e := mk.eventAt(te.typ, map[string]json.RawMessage{}, patio.NewTimestamp(te.at))
			e.Recorded = later(e.Recorded, te.recorded)
			events = append(events, e)
		}
		return events, nil
	}
	var events []Event
	if !quiet[c.Resource] {
		events = append(events, mk.event(c.Resource+".updated", prev))
	}
	for _, fe := range fieldEvents[c.Resource] {
		if _, ok := prev[fe.field]; ok {
			events = append(events, mk.event(fe.typ, prev))
		}
	}
	if _, ok := prev["status"]; ok {
		var status string
		if err := json.Unmarshal(newFields["status"], &status); err == nil {
			if typ, ok := statusEvents[c.Resource][status]; ok {
				events = append(events, mk.event(typ, prev))
			}
		}
	}
	return events, nil
}

// previous returns the old values of the fields a change changed (null for a field it added),
// and whether it changed a field besides updated_at and revision.
func previous(oldFields, newFields map[string]json.RawMessage) (prev map[string]json.RawMessage, real bool) {
	prev = map[string]json.RawMessage{}
	for k, nv := range newFields {
		if ov, ok := oldFields[k]; !ok || !bytes.Equal(ov, nv) {
			if ok {
				prev[k] = ov
			} else {
				prev[k] = json.RawMessage("null")
			}
			real = real || (k != "updated_at" && k != "revision")
		}
	}
	return prev, real
}

// maker makes the events of one change, its record's representation their object.
type maker struct {
	c      Change
	object json.RawMessage
	at     patio.Timestamp // the change's time
}

// event is an event of the change at its time.
func (m maker) event(typ string, prev map[string]json.RawMessage) Event {
	return m.eventAt(typ, prev, m.at)
}

// eventAt is an event of the change at a time of its own (a timed event's).
func (m maker) eventAt(typ string, prev map[string]json.RawMessage, at patio.Timestamp) Event {
	// The write's own instant, to the millisecond, is later than the record's time, which the
	// domain set before the write (and to the second): a write may end in the next second.
	recorded := at.Time()
	if m.c.Written.After(recorded) {
		recorded = m.c.Written
	}
	return Event{ID: EventID(m.c.SourceID, typ), Type: typ, APIVersion: APIVersion, CreatedAt: at,
		Data: Data{Object: m.object, PreviousAttributes: prev}, TeamID: m.c.TeamID, Recorded: recorded}
}

// timed is a timed event a change records, at its scheduled instant, and when it was recorded.
type timed struct {
	typ      string
	at       time.Time
	recorded time.Time
}

// timedEvents returns the timed events a change records: the timer marks a record's alarm as fired,
// changing neither its representation nor its revision; a regular write that marks one (an activity
// moved to a due_at already past skips its due soon) is not a firing.
func timedEvents(c Change) []timed {
	switch n := c.New.(type) {
	case patio.Activity:
		o, ok := c.Old.(patio.Activity)
		if !ok || o.Revision != n.Revision || n.DueAt == nil {
			return nil
		}
		var out []timed
		if newly(o.DueSoonFired, n.DueSoonFired) && *n.DueSoonFired == *n.DueAt {
			out = append(out, timed{ActivityDueSoon, n.DueSoonAt(), firedAt(n.FiredAt, c.At)})
		}
		if newly(o.OverdueFired, n.OverdueFired) && *n.OverdueFired == *n.DueAt {
			out = append(out, timed{ActivityOverdue, n.DueAt.Time(), firedAt(n.FiredAt, c.At)})
		}
		return out
	case patio.FinancialRecord:
		o, ok := c.Old.(patio.FinancialRecord)
		if ok && o.Revision == n.Revision && n.OverdueFired != nil && (o.OverdueFired == nil || *o.OverdueFired != *n.OverdueFired) &&
			*n.OverdueFired == n.DueDate {
			return []timed{{FinancialOverdue, n.OverdueAt(), firedAt(n.FiredAt, c.At)}}
		}
	}
	return nil
}

// firedAt is when the timer recorded a firing: the record's mark of it, or (a record fired before
// the mark existed) the stream's approximate time of the change.
func firedAt(mark *patio.Timestamp, stream time.Time) time.Time {
	if mark != nil {
		return mark.Time()
	}
	return stream
}

// newly reports a mark set or moved by a change.
func newly(old, cur *patio.Timestamp) bool { return cur != nil && (old == nil || *old != *cur) }

// changeTime returns the time of a change as the record states it, never the stream's: its
// created_at for a creation, else its updated_at; fallback when the record has no such time.
func changeTime(fields map[string]json.RawMessage, created bool, fallback time.Time) patio.Timestamp {
	name := "updated_at"
	if created {
		name = "created_at"
	}
	var s string
	if err := json.Unmarshal(fields[name], &s); err == nil {
		if ts, err := patio.ParseTimestamp(s); err == nil && !ts.Time().IsZero() {
			return ts
		}
	}
	return patio.NewTimestamp(fallback)
}

// fields returns a representation's JSON members and its whole JSON form.
func fields(rep any) (map[string]json.RawMessage, json.RawMessage, error) {
	data, err := json.Marshal(rep)
	if err != nil {
		return nil, nil, patio.Internal(fmt.Errorf("webhook: encode object: %w", err))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, patio.Internal(fmt.Errorf("webhook: object is not a JSON object: %w", err))
	}
	return m, data, nil
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
