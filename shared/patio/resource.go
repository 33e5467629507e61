package patio

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/money"
)

// NewID returns a fresh UUIDv7 and the instant it encodes, so that a record's created_at and its id
// sort the same way.
func NewID() (string, time.Time) {
	u := uuid.Must(uuid.NewV7())
	sec, nsec := u.Time().UnixTime()
	return u.String(), time.Unix(sec, nsec).UTC()
}

// IDTime returns the instant, to the millisecond, at which NewID made id; ok false for an id that
// is not a UUIDv7.
func IDTime(id string) (time.Time, bool) {
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		return time.Time{}, false
	}
	sec, nsec := u.Time().UnixTime()
	return time.Unix(sec, nsec).UTC(), true
}

// Record is what every resource's record provides to the shared use cases: a copy of itself
// stamped with a new updated_at, and its revision.
type Record[T any] interface {
	touched(now time.Time) T
	revision() int
}

// Precondition is what a conditional request asks of the stored record (If-Match): the zero
// value asks nothing; Any asks that the record exists; otherwise its revision must be one of
// Revisions.
type Precondition struct {
	Any       bool
	Revisions []int
}

// check answers KindPrecondition when a record at revision does not satisfy the precondition.
func (p Precondition) check(revision int) error {
	if p.Any || len(p.Revisions) == 0 {
		return nil
	}
	for _, r := range p.Revisions {
		if r == revision {
			return nil
		}
	}
	return Errorf(KindPrecondition, "If-Match does not match the record's current revision %d", revision)
}

// The resources records can name (Requirement.Resource).
const (
	ResourceVehicle = "vehicle"
	ResourceClient  = "client"
	ResourceDeal    = "deal"
	// The dashboard modules, which the public API does not serve.
	ResourceActivity  = "activity"
	ResourceFinancial = "financial"
)

// Requirement is a record of the team that must exist, in one of Statuses, for a write to stand.
// The store checks it in the same transaction as the write and answers Err when it does not hold,
// so a requirement can never be broken by a concurrent write.
type Requirement struct {
	Resource string // ResourceVehicle, ResourceClient, ...
	ID       string
	Statuses []string
	Err      error // KindConflict, naming the member that referenced the record
}

// Revised is another record a write replaces in the same transaction: Next replaces Cur, only if
// Cur is still the stored revision (a lost race re-runs the whole use case). Cur and Next are of
// one record type (a Vehicle when a deal wins it).
type Revised struct {
	Cur, Next any
}

// Write is what one use case asks the store to write, atomically: the record, the requirements it
// rests on and the other records it changes. Changed is false when the record would be stored as
// it is (nothing is written then); the shared use cases decide it, in one place (settle).
type Write[T any] struct {
	Record   T
	Requires []Requirement
	Also     []Revised
	Changed  bool
	// Claim, on a creation, is the Idempotency-Key it claims in the same write (ErrClaimTaken
	// when already claimed). The store fills in its Record.
	Claim *Claim
}

// Store persists one resource's records in a team. Implementations own revisions: a created record
// has revision 1, and each write that changes it adds one, conditioned on the revision read.
type Store[T any, Q any] interface {
	// Create stores a new record with its requirements and returns it as stored. A unique value
	// already used in the team is KindDuplicate; a requirement that does not hold is its Err.
	Create(ctx context.Context, w Write[T]) (T, error)
	// Get returns a team's record, or KindNotFound.
	Get(ctx context.Context, teamID, id string) (T, error)
	// Names returns the team's records of ids, in no particular order, with at least the fields
	// that name them in a link (a vehicle's title and plate, a client's name, a deal's title) and
	// their id; other fields may be zero. An id with no record is left out.
	Names(ctx context.Context, teamID string, ids []string) ([]T, error)
	// Counts returns how many of the team's records have each status (the counts the store keeps;
	// no record is read).
	Counts(ctx context.Context, teamID string) (map[string]int, error)
	// Sums returns, by value of a closed facet (a deal's phase), how many of the team's records of
	// a status hold it and the sum of their amounts (a deal's value), as the store keeps them (no
	// record is read); ok is false when it does not keep them whole for the team (records written
	// before it kept them), or keeps none for the resource.
	Sums(ctx context.Context, teamID, facet, status string) (sums map[string]Sum, ok bool, err error)
	// Update reads the record, asks change for the write and, when it changes something, performs
	// it conditioned on the revision read; a lost race re-reads and asks again. It returns the
	// stored record (the one read when nothing changed).
	Update(ctx context.Context, teamID, id string, change func(cur T) (Write[T], error)) (T, error)
	// List returns one page of a team's records, the number of all that match, and the position
	// after the page's last record.
	List(ctx context.Context, teamID string, q Q) (Listed[T], error)
}

// Listed is one page as the store read it: the records, the number of all that match, and After,
// the position just past the page's last record (a later query's ListQuery.After resumes there;
// "" on an empty page).
type Listed[T any] struct {
	Items []T
	Total int
	After string
	Index *IndexView
}

// IndexView says how current the derived items a list read are (the items the indexer keeps from
// the table's stream: q's words, some facets' copies and their counts; nil for a list read from
// the records' own items alone). The page and the total were read from one state of them, which
// holds every change of the team written up to Through; the last change reached them Lag after
// it was written.
type IndexView struct {
	Through time.Time
	Lag     time.Duration
}

// Rules is what makes a resource: how a record is built from a create input, what an update
// input does to it, its soft delete, and how its list queries are checked. The functions return
// KindInvalid for a request wrong on its own and KindConflict for one that conflicts with stored
// state; they never set updated_at (settle does).
type Rules[T any, In any, Q any] struct {
	New    func(ctx context.Context, teamID, id string, now time.Time, in In) (Write[T], error)
	Apply  func(ctx context.Context, cur T, in In, now time.Time) (Write[T], error)
	Remove func(cur T) T
	Query  func(q Q) (Q, error)
	// Scope, when set, completes a query with what it takes from the team (the financial overdue
	// view's date in the team's time zone) before Query checks it.
	Scope func(ctx context.Context, teamID string, q Q) (Q, error)
}

// Query is a resource's list query: it embeds ListQuery.
type Query interface{ listQuery() ListQuery }

func (q ListQuery) listQuery() ListQuery { return q }

// Page is one page of a list: its records, the number of all that match, the shared list
// parameters as they were served (defaults filled in), and Next, the position where the next page
// starts ("" on the last page).
type Page[T any] struct {
	Items []T
	Total int
	List  ListQuery
	Next  string
	Index *IndexView // how current the derived items the page was read from are; nil for none
}

// Service is the use cases every resource shares (create, get, update, soft delete, list),
// assembled from the resource's Rules and its Store. Vehicles, Clients and Deals are Services.
type Service[T Record[T], In any, Q Query] struct {
	store  Store[T, Q]
	claims Claims
	rules  Rules[T, In, Q]
	now    func() time.Time
	// audit, when set, records every change in the team's audit log as <resource>.create,
	// <resource>.update (with the fields that changed) and <resource>.cancel.
	audit    Auditor
	resource string
}

// WithAudit returns the service recording each change it makes in the audit log, as the actions
// of resource ("activity": activity.create, activity.update, activity.cancel) by the actor of the
// call's context. The public API's services are not audited here: their changes are audited from
// the tables' stream (ChangeAudit), off the request's path.
func (s Service[T, In, Q]) WithAudit(a Auditor, resource string) Service[T, In, Q] {
	s.audit, s.resource = a, resource
	return s
}

// WithClaims returns the service with the store of Idempotency-Key claims CreateOnce needs.
func (s Service[T, In, Q]) WithClaims(c Claims) Service[T, In, Q] {
	s.claims = c
	return s
}

// WithClock returns the service with another clock (tests); time.Now by default.
func (s Service[T, In, Q]) WithClock(now func() time.Time) Service[T, In, Q] {
	s.now = now
	return s
}

func (s Service[T, In, Q]) clock() time.Time {
	if s.now == nil {
		return time.Now()
	}
	return s.now()
}

// Create builds a record of the team from a create input and stores it.
func (s Service[T, In, Q]) Create(ctx context.Context, teamID string, in In) (T, error) {
	return s.create(ctx, teamID, in, nil)
}

func (s Service[T, In, Q]) create(ctx context.Context, teamID string, in In, key *IdempotencyKey) (T, error) {
	id, now := NewID()
	if s.now != nil {
		now = s.now()
	}
	w, err := s.rules.New(ctx, teamID, id, now, in)
	if err != nil {
		var zero T
		return zero, err
	}
	w.Changed = true
	if key != nil {
		w.Claim = &Claim{TeamID: teamID, Key: key.Key, Fingerprint: key.Fingerprint, Expires: now.Add(IdempotencyWindow)}
	}
	rec, err := s.store.Create(ctx, w)
	if err != nil || s.audit == nil {
		return rec, err
	}
	return rec, Audit(ctx, s.audit, teamID, s.resource+".create", s.resource+":"+id, fieldsOf(rec)...)
}

// Get returns one record; an id that is not a UUID is KindNotFound, like an unknown one.
func (s Service[T, In, Q]) Get(ctx context.Context, teamID, id string) (T, error) {
	id, ok := ParseID(id)
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	return s.store.Get(ctx, teamID, id)
}

// Names returns the records of ids (the ones that exist; ids that are not UUIDs are left out,
// like unknown ones), in no particular order, with the fields that name them (Store.Names).
func (s Service[T, In, Q]) Names(ctx context.Context, teamID string, ids []string) ([]T, error) {
	var valid []string
	for _, id := range ids {
		if id, ok := ParseID(id); ok && !slices.Contains(valid, id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil, nil
	}
	return s.store.Names(ctx, teamID, valid)
}

// Counts returns how many of the team's records have each status.
func (s Service[T, In, Q]) Counts(ctx context.Context, teamID string) (map[string]int, error) {
	return s.store.Counts(ctx, teamID)
}

// Sum is how many records hold a value and the sum of their amounts.
type Sum struct {
	Count  int
	Amount money.Cents
}

// Sums returns the maintained counts and amounts of a facet's values among the team's records of
// a status (Store.Sums); ok is false when the store has none whole to give.
func (s Service[T, In, Q]) Sums(ctx context.Context, teamID, facet, status string) (map[string]Sum, bool, error) {
	return s.store.Sums(ctx, teamID, facet, status)
}

// Update applies an update input (PUT: only the members present change) to the stored record.
func (s Service[T, In, Q]) Update(ctx context.Context, teamID, id string, in In) (T, error) {
	return s.UpdateIf(ctx, teamID, id, in, Precondition{})
}

// UpdateIf is Update on a condition: when the stored record does not satisfy pre, nothing is
// written and the answer is KindPrecondition (checked after a KindInvalid input, before a
// KindConflict).
func (s Service[T, In, Q]) UpdateIf(ctx context.Context, teamID, id string, in In, pre Precondition) (T, error) {
	return s.edit(ctx, teamID, id, pre, "update", func(ctx context.Context, cur T, now time.Time) (Write[T], error) {
		return s.rules.Apply(ctx, cur, in, now)
	})
}

// Archive soft-deletes the stored record; doing it again changes nothing.
func (s Service[T, In, Q]) Archive(ctx context.Context, teamID, id string) (T, error) {
	return s.ArchiveIf(ctx, teamID, id, Precondition{})
}

// ArchiveIf is Archive on a condition, like UpdateIf.
func (s Service[T, In, Q]) ArchiveIf(ctx context.Context, teamID, id string, pre Precondition) (T, error) {
	return s.edit(ctx, teamID, id, pre, "update", func(_ context.Context, cur T, _ time.Time) (Write[T], error) {
		return Write[T]{Record: s.rules.Remove(cur)}, nil
	})
}

// List returns a page of the team's records.
func (s Service[T, In, Q]) List(ctx context.Context, teamID string, q Q) (Page[T], error) {
	var err error
	if s.rules.Scope != nil {
		if q, err = s.rules.Scope(ctx, teamID, q); err != nil {
			return Page[T]{}, err
		}
	}
	q, err = s.rules.Query(q)
	if err != nil {
		return Page[T]{}, err
	}
	// No record was updated after now: a sync from a later instant (a clock ahead of ours) is
	// simply up to date.
	if since := q.listQuery().UpdatedSince; q.listQuery().none || since != nil && since.Time().After(s.clock()) {
		return Page[T]{List: q.listQuery()}, nil
	}
	got, err := s.store.List(ctx, teamID, q)
	if err != nil {
		return Page[T]{}, err
	}
	lq := q.listQuery()
	page := Page[T]{Items: got.Items, Total: got.Total, List: lq, Index: got.Index}
	if lq.Page.Value*lq.Limit.Value < got.Total && len(got.Items) > 0 {
		page.Next = got.After
	}
	return page, nil
}

// edit is the one update path: the store reads the record, the use case computes the write, and
// settle decides whether it changes anything. A change is audited as action (update, cancel) with
// the fields it changed.
func (s Service[T, In, Q]) edit(ctx context.Context, teamID, id string, pre Precondition, action string,
	apply func(ctx context.Context, cur T, now time.Time) (Write[T], error)) (T, error) {
	id, ok := ParseID(id)
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	var changed []string // of the last attempt, the one that was written
	verb := action
	rec, err := s.store.Update(ctx, teamID, id, func(cur T) (Write[T], error) {
		now := s.clock()
		w, err := apply(ctx, cur, now)
		if IsKind(err, KindInvalid) {
			return Write[T]{}, err
		}
		if perr := pre.check(cur.revision()); perr != nil {
			return Write[T]{}, perr
		}
		if err != nil {
			return Write[T]{}, err
		}
		w = settle(cur, w, now)
		changed, verb = nil, action
		if w.Changed && s.audit != nil {
			changed = changedFields(cur, w.Record)
			if v := statusVerb(s.resource, changed, w.Record); v != "" {
				verb = v
			}
		}
		return w, nil
	})
	if err != nil || len(changed) == 0 {
		return rec, err
	}
	return rec, Audit(ctx, s.audit, teamID, s.resource+"."+verb, s.resource+":"+id, changed...)
}

// fieldsOf returns the names of a record's fields that are set (not null), as its JSON form names
// them: what a creation wrote.
func fieldsOf(rec any) []string {
	m := jsonFields(rec)
	var out []string
	for k, v := range m {
		if string(v) != "null" && !serverManaged[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// changedFields returns the names of the fields whose values differ between two versions of a
// record (the server's own bookkeeping aside).
func changedFields(cur, next any) []string {
	a, b := jsonFields(cur), jsonFields(next)
	var out []string
	for k, v := range b {
		if !serverManaged[k] && !bytes.Equal(a[k], v) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// serverManaged are the fields every change moves on its own.
var serverManaged = map[string]bool{"id": true, "updated_at": true, "created_at": true, "revision": true}

func jsonFields(rec any) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	b, err := json.Marshal(rec)
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// settle decides whether a write changes the record: it does when the record differs from the
// one read, or when it changes other records. A changed record gets updated_at now.
func settle[T Record[T]](cur T, w Write[T], now time.Time) Write[T] {
	w.Changed = len(w.Also) > 0 || Changed(cur, w.Record)
	if w.Changed {
		w.Record = w.Record.touched(now)
	}
	return w
}

// Changed reports whether next differs from cur in any field: the one definition of "a write
// that changes nothing", which answers 200 and writes nothing.
func Changed[T any](cur, next T) bool { return !reflect.DeepEqual(cur, next) }
