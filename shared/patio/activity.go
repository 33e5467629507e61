package patio

import (
	"context"
	"slices"
	"time"
)

// ActivityStatus is where an activity stands: to do (ActivityPending), under way
// (ActivityInProgress), done (ActivityCompleted) or dropped (ActivityCancelled, the soft-deleted
// status).
type ActivityStatus string

// Activity statuses.
const (
	ActivityPending    ActivityStatus = "pending"
	ActivityInProgress ActivityStatus = "in_progress"
	ActivityCompleted  ActivityStatus = "completed"
	ActivityCancelled  ActivityStatus = "cancelled"
)

// Activity enums and sortable fields.
var (
	ActivityTypes    = []string{"task", "deadline", "meeting", "call", "email", "note"}
	ActivityStatuses = []string{string(ActivityPending), string(ActivityInProgress), string(ActivityCompleted), string(ActivityCancelled)}
	ActivitySorts    = []string{"created_at", "updated_at", "due_at"}
)

// activityTransitions are the status changes an activity allows: pending ↔ in_progress; either
// → completed or cancelled; completed or cancelled → pending (reopening).
var activityTransitions = map[ActivityStatus][]ActivityStatus{
	ActivityPending:    {ActivityInProgress, ActivityCompleted, ActivityCancelled},
	ActivityInProgress: {ActivityPending, ActivityCompleted, ActivityCancelled},
	ActivityCompleted:  {ActivityPending},
	ActivityCancelled:  {ActivityPending},
}

// Activity is a task, deadline or event of a team, optionally linked to its vehicles, clients and
// deals. It is managed from the dashboard side (the operators' tool), not the public API; its JSON
// form is the webhook data.object of the activity events.
type Activity struct {
	ID          string         `json:"id"`
	TeamID      string         `json:"-"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description *string        `json:"description"`
	Status      ActivityStatus `json:"status"`
	DueAt       *Timestamp     `json:"due_at"`
	VehicleID   *string        `json:"vehicle_id"`
	ClientID    *string        `json:"client_id"`
	DealID      *string        `json:"deal_id"`
	CompletedAt *Timestamp     `json:"completed_at"`
	CreatedAt   Timestamp      `json:"created_at"`
	UpdatedAt   Timestamp      `json:"updated_at"`
	// Revision starts at 1 and grows by one with every write that changes the record; the store
	// sets it.
	Revision int `json:"revision"`

	// DueSoonFired and OverdueFired are the due_at values the activity's timed events fired for:
	// each fires at most once per due_at value, and moving due_at arms both again. Not part of the
	// representation; firing changes neither revision nor updated_at.
	DueSoonFired, OverdueFired *Timestamp `json:"-"`
	// FiredAt is when the timer last fired one of the activity's timed events: when that event was
	// recorded, which decides the webhooks that receive it (its created_at is the scheduled
	// instant, possibly earlier). Not part of the representation.
	FiredAt *Timestamp `json:"-"`
}

// ActivityInput is an activity's create or update input, member by member.
type ActivityInput struct {
	Type, Title, Description, Status Opt[string]
	DueAt                            Opt[Timestamp]
	VehicleID, ClientID, DealID      Opt[string]
}

// Validate checks each member of the input on its own.
func (in ActivityInput) Validate(time.Time) error {
	var p Problems
	in.check(&p)
	return p.Err()
}

func (in *ActivityInput) check(p *Problems) {
	checkEnum(p, "type", in.Type, ActivityTypes)
	checkText(p, "title", &in.Title, 1, 200)
	checkMultiline(p, "description", &in.Description, 0, 5000)
	checkEnum(p, "status", in.Status, ActivityStatuses)
	checkID(p, "vehicle_id", &in.VehicleID)
	checkID(p, "client_id", &in.ClientID)
	checkID(p, "deal_id", &in.DealID)
}

func (a *Activity) merge(in ActivityInput) {
	setIf(&a.Type, in.Type)
	setIf(&a.Title, in.Title)
	apply(&a.Description, in.Description)
	apply(&a.DueAt, in.DueAt)
	apply(&a.VehicleID, in.VehicleID)
	apply(&a.ClientID, in.ClientID)
	apply(&a.DealID, in.DealID)
}

// NewActivity builds an activity of the team: type and title required; it starts pending or in
// progress. Errors are KindInvalid, listing every problem.
func NewActivity(teamID, id string, now time.Time, in ActivityInput) (Write[Activity], error) {
	var p Problems
	in.check(&p)
	required(&p, "type", in.Type)
	required(&p, "title", in.Title)
	notNull(&p, "status", in.Status)
	if st := ActivityStatus(in.Status.Value); in.Status.Set() && st != ActivityPending && st != ActivityInProgress {
		p.Add(InBody, "status", "status must be pending or in_progress when creating an activity")
	}
	if err := p.Err(); err != nil {
		return Write[Activity]{}, err
	}
	ts := NewTimestamp(now)
	a := Activity{ID: id, TeamID: teamID, Status: ActivityPending, CreatedAt: ts, UpdatedAt: ts}
	a.merge(in)
	setAs(&a.Status, in.Status)
	a = a.armed(nil, now)
	return Write[Activity]{Record: a, Requires: linkRequirements(nil, a.VehicleID, a.ClientID, a.DealID)}, nil
}

// Apply returns the write an update input makes: members change, and a status change follows the
// transition table (KindConflict otherwise); completing sets completed_at, reopening clears it.
// New links must name records of the team (KindConflict).
func (a Activity) Apply(in ActivityInput, now time.Time) (Write[Activity], error) {
	var p Problems
	in.check(&p)
	notNull(&p, "type", in.Type)
	notNull(&p, "title", in.Title)
	notNull(&p, "status", in.Status)
	if err := p.Err(); err != nil {
		return Write[Activity]{}, err
	}
	next := a
	next.merge(in)
	if in.Status.Set() && ActivityStatus(in.Status.Value) != a.Status {
		var err error
		if next, err = next.moveTo(a.Status, ActivityStatus(in.Status.Value), now); err != nil {
			return Write[Activity]{}, err
		}
	}
	next = next.armed(a.DueAt, now)
	return Write[Activity]{Record: next, Requires: linkRequirements(&a, next.VehicleID, next.ClientID, next.DealID)}, nil
}

// armed returns the activity with its timed events set for a due_at that was (or not) was: an
// activity created or moved with due_at already past fires only activity.overdue, so its due soon
// is marked as fired at once.
func (a Activity) armed(was *Timestamp, now time.Time) Activity {
	if a.DueAt != nil && (was == nil || *was != *a.DueAt) && !a.DueAt.Time().After(now) {
		a.DueSoonFired = a.DueAt
	}
	return a
}

// The timed events of activities and financial records: an activity's due soon (24 h before its
// due_at) and overdue, a financial record's overdue.
const (
	AlarmDueSoon = "due_soon"
	AlarmOverdue = "overdue"
)

// Alarm is a timed event a record has yet to fire: its type, and when to fire it (never before
// the record's last write: a due soon armed less than 24 h before due_at fires at once).
type Alarm struct {
	Type string
	At   time.Time
}

// DueSoonAt is when an activity's due soon is scheduled (due_at − 24 h): its event's created_at.
func (a Activity) DueSoonAt() time.Time { return a.DueAt.Time().Add(-24 * time.Hour) }

// NextAlarm returns the next timed event the activity has to fire, if any: none once completed or
// cancelled, or without due_at.
func (a Activity) NextAlarm() (Alarm, bool) {
	if !a.Open() || a.DueAt == nil {
		return Alarm{}, false
	}
	if a.DueSoonFired == nil || *a.DueSoonFired != *a.DueAt {
		return Alarm{Type: AlarmDueSoon, At: later(a.DueSoonAt(), a.UpdatedAt.Time())}, true
	}
	if a.OverdueFired == nil || *a.OverdueFired != *a.DueAt {
		return Alarm{Type: AlarmOverdue, At: later(a.DueAt.Time(), a.UpdatedAt.Time())}, true
	}
	return Alarm{}, false
}

// Fired returns the activity with the alarm of type typ marked as fired for its due_at, at at.
func (a Activity) Fired(typ string, at time.Time) Activity {
	a.FiredAt = ptr(NewTimestamp(at))
	switch typ {
	case AlarmDueSoon:
		a.DueSoonFired = a.DueAt
	case AlarmOverdue:
		a.OverdueFired = a.DueAt
	}
	return a
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// moveTo applies a status transition from one status to another.
func (a Activity) moveTo(from, to ActivityStatus, now time.Time) (Activity, error) {
	if !slices.Contains(activityTransitions[from], to) {
		return a, Conflictf("an activity that is %s cannot become %s", from, to)
	}
	a.Status = to
	switch to {
	case ActivityCompleted:
		a.CompletedAt = ptr(NewTimestamp(now))
	case ActivityPending:
		a.CompletedAt = nil
	}
	return a, nil
}

// Cancel returns the activity cancelled: the soft delete, from any status.
func (a Activity) Cancel() Activity {
	a.Status = ActivityCancelled
	a.CompletedAt = nil
	return a
}

// Open reports whether the activity's timed events (due soon, overdue) may still fire.
func (a Activity) Open() bool { return a.Status == ActivityPending || a.Status == ActivityInProgress }

func (a Activity) revision() int { return a.Revision }

func (a Activity) touched(now time.Time) Activity {
	a.UpdatedAt = NewTimestamp(now)
	return a
}

// linkRequirements are the links a write must find in the team, in its own transaction: those
// set by it (all of them on a creation, cur nil; the changed ones on an update).
func linkRequirements(cur *Activity, vehicleID, clientID, dealID *string) []Requirement {
	var out []Requirement
	for _, l := range []struct {
		resource, member string
		statuses         []string
		id, was          *string
	}{
		{ResourceVehicle, "vehicle_id", VehicleStatuses, vehicleID, curLink(cur, func(a Activity) *string { return a.VehicleID })},
		{ResourceClient, "client_id", ClientStatuses, clientID, curLink(cur, func(a Activity) *string { return a.ClientID })},
		{ResourceDeal, "deal_id", DealStatuses, dealID, curLink(cur, func(a Activity) *string { return a.DealID })},
	} {
		if l.id != nil && !sameID(l.id, l.was) {
			out = append(out, linkRequirement(l.resource, l.member, l.statuses, *l.id))
		}
	}
	return out
}

func curLink(cur *Activity, get func(Activity) *string) *string {
	if cur == nil {
		return nil
	}
	return get(*cur)
}

// linkRequirement is the rule that a link names a record of the team (in any status).
func linkRequirement(resource, member string, statuses []string, id string) Requirement {
	return Requirement{Resource: resource, ID: id, Statuses: statuses,
		Err: Conflictf("%s does not name a %s of this team", member, resource)}
}

// ActivityQuery is an activity list request.
type ActivityQuery struct {
	ListQuery
	Type                        []string
	DueFrom, DueTo              *Timestamp // due_at window, inclusive
	VehicleID, ClientID, DealID *string
	// Overdue keeps the open activities whose due_at has passed (at Now).
	Overdue bool
	Now     time.Time
}

// Check validates the query's values and returns it with the defaults filled in.
func (q ActivityQuery) Check() (ActivityQuery, error) {
	var p Problems
	q.ListQuery = q.ListQuery.check(&p, listSpec{sorts: ActivitySorts, statuses: ActivityStatuses, softDeleted: string(ActivityCancelled)})
	checkEnumParam(&p, "type", q.Type, ActivityTypes)
	for name, v := range map[string]**string{"vehicle_id": &q.VehicleID, "client_id": &q.ClientID, "deal_id": &q.DealID} {
		checkIDParam(&p, name, v)
	}
	if q.DueFrom != nil && q.DueTo != nil {
		checkReversed(&p, "due_from", "due_to", q.DueFrom.Time().Unix(), q.DueTo.Time().Unix())
	}
	if q.Overdue {
		q.Status = []string{string(ActivityPending), string(ActivityInProgress)}
		if q.Now.IsZero() {
			q.Now = time.Now()
		}
		to := NewTimestamp(q.Now)
		if q.DueTo == nil || q.DueTo.Time().After(to.Time()) {
			q.DueTo = &to
		}
		q.none = q.DueFrom != nil && q.DueFrom.Time().After(q.DueTo.Time())
	}
	return q, p.Err()
}

// ActivityStore persists activities.
type ActivityStore = Store[Activity, ActivityQuery]

// Activities is the activity use cases.
type Activities = Service[Activity, ActivityInput, ActivityQuery]

// NewActivities returns the activity use cases on a store.
func NewActivities(store ActivityStore) Activities {
	return Activities{store: store, rules: Rules[Activity, ActivityInput, ActivityQuery]{
		New: func(_ context.Context, teamID, id string, now time.Time, in ActivityInput) (Write[Activity], error) {
			return NewActivity(teamID, id, now, in)
		},
		Apply: func(_ context.Context, cur Activity, in ActivityInput, now time.Time) (Write[Activity], error) {
			return cur.Apply(in, now)
		},
		Remove: Activity.Cancel,
		Query:  ActivityQuery.Check,
	}}
}
