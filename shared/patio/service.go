package patio

import (
	"context"
	"net/url"
	"reflect"
	"time"

	"github.com/google/uuid"
)

// NewID returns a fresh UUIDv7 and the instant it encodes, so that a record's created_at and its id
// sort the same way.
func NewID() (string, time.Time) {
	u := uuid.Must(uuid.NewV7())
	sec, nsec := u.Time().UnixTime()
	return u.String(), time.Unix(sec, nsec).UTC()
}

// VehicleStore persists vehicles. Implementations enforce plate uniqueness atomically.
type VehicleStore interface {
	// CreateVehicle stores a new vehicle; a plate already used in the team is KindDuplicate.
	CreateVehicle(ctx context.Context, v Vehicle) error
	// GetVehicle returns a team's vehicle, or KindNotFound.
	GetVehicle(ctx context.Context, teamID, id string) (Vehicle, error)
	// UpdateVehicle reads the vehicle, applies change and writes the result when change reports a
	// difference, atomically with respect to concurrent writers (re-applying change on a lost race).
	UpdateVehicle(ctx context.Context, teamID, id string, change func(Vehicle) (Vehicle, bool, error)) (Vehicle, error)
	// ListVehicles returns one page of a team's vehicles and the number of all that match.
	ListVehicles(ctx context.Context, teamID string, q VehicleQuery) ([]Vehicle, int, error)
}

// Vehicles is the vehicle use cases: it parses requests, applies the rules and calls the store.
type Vehicles struct {
	Store VehicleStore
	Now   func() time.Time // the clock; time.Now when nil
}

func (s Vehicles) crud() crud[Vehicle, *Vehicle, VehicleInput, VehicleQuery] {
	return crud[Vehicle, *Vehicle, VehicleInput, VehicleQuery]{
		now: s.Now, parse: ParseVehicleInput, build: NewVehicle, apply: Vehicle.Apply, remove: Vehicle.Archive,
		query:  ParseVehicleQuery,
		insert: s.Store.CreateVehicle, get: s.Store.GetVehicle, update: s.Store.UpdateVehicle, list: s.Store.ListVehicles,
	}
}

// Create registers a vehicle from a POST body.
func (s Vehicles) Create(ctx context.Context, teamID string, body Body) (Vehicle, error) {
	return s.crud().Create(ctx, teamID, body)
}

// Get returns one vehicle; an id that is not a UUID is KindNotFound.
func (s Vehicles) Get(ctx context.Context, teamID, id string) (Vehicle, error) {
	return s.crud().Get(ctx, teamID, id)
}

// Update applies a PUT body.
func (s Vehicles) Update(ctx context.Context, teamID, id string, body Body) (Vehicle, error) {
	return s.crud().Update(ctx, teamID, id, body)
}

// Archive soft-deletes a vehicle (status arquivado); archiving an archived vehicle changes nothing.
func (s Vehicles) Archive(ctx context.Context, teamID, id string) (Vehicle, error) {
	return s.crud().Archive(ctx, teamID, id)
}

// List returns a page of vehicles, the total that match, and the parsed query.
func (s Vehicles) List(ctx context.Context, teamID string, values url.Values) ([]Vehicle, int, ListQuery, error) {
	return s.crud().List(ctx, teamID, values)
}

// record is a pointer to a resource's record (*Vehicle, *Client): what the shared use cases set on
// it.
type record[T any] interface {
	*T
	setTeam(teamID string)
	touch(now time.Time) // sets updated_at
}

// lister is a resource's parsed list request, which embeds ListQuery.
type lister interface{ listQuery() ListQuery }

func (q ListQuery) listQuery() ListQuery { return q }

// changedTo returns next, with a new updated_at, and true when it differs from cur; cur and false
// otherwise.
func changedTo[T any, P record[T]](cur, next T, now time.Time) (T, bool) {
	if reflect.DeepEqual(cur, next) {
		return cur, false
	}
	P(&next).touch(now)
	return next, true
}

// crud is the use cases every resource shares, assembled from the resource's rules and its store:
// path ids checked, bodies parsed and validated, changes applied through the store's optimistic
// update. Vehicles and Clients are named wrappers around one.
type crud[T any, P record[T], In any, Q lister] struct {
	now    func() time.Time // the clock; time.Now when nil
	parse  func(body Body, now time.Time) (In, error)
	build  func(id string, now time.Time, in In) (T, error)
	apply  func(cur T, in In, now time.Time) (T, bool, error)
	remove func(cur T, now time.Time) (T, bool) // the soft delete
	query  func(url.Values) (Q, error)

	insert func(ctx context.Context, v T) error
	get    func(ctx context.Context, teamID, id string) (T, error)
	update func(ctx context.Context, teamID, id string, change func(T) (T, bool, error)) (T, error)
	list   func(ctx context.Context, teamID string, q Q) ([]T, int, error)
}

func (c crud[T, P, In, Q]) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// Create builds a record of the team from a POST body and stores it.
func (c crud[T, P, In, Q]) Create(ctx context.Context, teamID string, body Body) (T, error) {
	var zero T
	id, now := NewID()
	in, err := c.parse(body, now)
	if err != nil {
		return zero, err
	}
	v, err := c.build(id, now, in)
	if err != nil {
		return zero, err
	}
	P(&v).setTeam(teamID)
	if err := c.insert(ctx, v); err != nil {
		return zero, err
	}
	return v, nil
}

// Get returns one record; an id that is not a UUID is KindNotFound, like an unknown one.
func (c crud[T, P, In, Q]) Get(ctx context.Context, teamID, id string) (T, error) {
	id, ok := ParseID(id)
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	return c.get(ctx, teamID, id)
}

// Update applies a PUT body to the stored record.
func (c crud[T, P, In, Q]) Update(ctx context.Context, teamID, id string, body Body) (T, error) {
	var zero T
	id, ok := ParseID(id)
	if !ok {
		return zero, ErrNotFound
	}
	in, err := c.parse(body, c.clock())
	if err != nil {
		return zero, err
	}
	return c.update(ctx, teamID, id, func(v T) (T, bool, error) { return c.apply(v, in, c.clock()) })
}

// Archive soft-deletes the stored record; doing it again changes nothing.
func (c crud[T, P, In, Q]) Archive(ctx context.Context, teamID, id string) (T, error) {
	id, ok := ParseID(id)
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	return c.update(ctx, teamID, id, func(v T) (T, bool, error) {
		next, changed := c.remove(v, c.clock())
		return next, changed, nil
	})
}

// List returns a page of records, the total that match, and the parsed query.
func (c crud[T, P, In, Q]) List(ctx context.Context, teamID string, values url.Values) ([]T, int, ListQuery, error) {
	q, err := c.query(values)
	if err != nil {
		return nil, 0, ListQuery{}, err
	}
	items, total, err := c.list(ctx, teamID, q)
	return items, total, q.listQuery(), err
}
