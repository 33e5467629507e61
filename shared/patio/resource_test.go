package patio_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// fakeStore is a patio.Store whose methods call its function fields. A method whose field is nil
// fails the test: the case says the store is not to be called.
type fakeStore[T any, Q any] struct {
	t        *testing.T
	CreateFn func(ctx context.Context, w patio.Write[T]) (T, error)
	GetFn    func(ctx context.Context, teamID, id string) (T, error)
	UpdateFn func(ctx context.Context, teamID, id string, change func(cur T) (patio.Write[T], error)) (T, error)
	ListFn   func(ctx context.Context, teamID string, q Q) ([]T, int, error)
}

var errUnexpectedCall = errors.New("fake store: unexpected call")

func (s *fakeStore[T, Q]) unexpected(method string) error {
	s.t.Helper()
	s.t.Errorf("store.%s called; want no call", method)
	return errUnexpectedCall
}

func (s *fakeStore[T, Q]) Create(ctx context.Context, w patio.Write[T]) (T, error) {
	if s.CreateFn == nil {
		var zero T
		return zero, s.unexpected("Create")
	}
	return s.CreateFn(ctx, w)
}

func (s *fakeStore[T, Q]) Get(ctx context.Context, teamID, id string) (T, error) {
	if s.GetFn == nil {
		var zero T
		return zero, s.unexpected("Get")
	}
	return s.GetFn(ctx, teamID, id)
}

func (s *fakeStore[T, Q]) Names(ctx context.Context, teamID string, ids []string) ([]T, error) {
	return nil, s.unexpected("Names")
}

func (s *fakeStore[T, Q]) Counts(ctx context.Context, teamID string) (map[string]int, error) {
	return nil, s.unexpected("Counts")
}

func (s *fakeStore[T, Q]) Sums(ctx context.Context, teamID, facet, status string) (map[string]patio.Sum, bool, error) {
	return nil, false, s.unexpected("Sums")
}

func (s *fakeStore[T, Q]) Update(ctx context.Context, teamID, id string, change func(cur T) (patio.Write[T], error)) (T, error) {
	if s.UpdateFn == nil {
		var zero T
		return zero, s.unexpected("Update")
	}
	return s.UpdateFn(ctx, teamID, id, change)
}

func (s *fakeStore[T, Q]) List(ctx context.Context, teamID string, q Q) (patio.Listed[T], error) {
	if s.ListFn == nil {
		return patio.Listed[T]{}, s.unexpected("List")
	}
	items, total, err := s.ListFn(ctx, teamID, q)
	return patio.Listed[T]{Items: items, Total: total}, err
}

// holding returns an UpdateFn for a store holding cur under (team, id): it asks change for the
// write, keeps it in *got and answers as a store does, the record written when it changed, the
// one read otherwise. It fails the test when asked for another record.
func holding[T any](t *testing.T, id string, cur T, got *patio.Write[T]) func(context.Context, string, string, func(T) (patio.Write[T], error)) (T, error) {
	return func(_ context.Context, teamID, gotID string, change func(T) (patio.Write[T], error)) (T, error) {
		if teamID != team || gotID != id {
			t.Errorf("store.Update(%q, %q); want (%q, %q)", teamID, gotID, team, id)
		}
		w, err := change(cur)
		if err != nil {
			return cur, err
		}
		*got = w
		if !w.Changed {
			return cur, nil
		}
		return w.Record, nil
	}
}

func clock() time.Time { return now }

func TestServiceUpdate(t *testing.T) {
	tests := []struct {
		name    string
		cur     patio.Vehicle
		in      patio.VehicleInput
		changed bool
		want    patio.Vehicle // the write's record
	}{
		{name: "nothing sent", cur: stock, want: stock},
		{name: "the same values", cur: stock, in: patio.VehicleInput{Brand: patio.Some(" Fiat"), Plate: patio.Some("abc-1234")},
			want: stock},
		{name: "a new price", cur: stock, in: patio.VehicleInput{Price: patio.Some(money.Cents(7_500_000))}, changed: true,
			want: with(stock, func(v *patio.Vehicle) { v.Price, v.UpdatedAt = 7_500_000, nowTS })},
		{name: "sold", cur: stock, in: patio.VehicleInput{Status: status(patio.VehicleSold)}, changed: true,
			want: with(stock, func(v *patio.Vehicle) { v.Status, v.SoldAt, v.UpdatedAt = patio.VehicleSold, ptr(nowTS), nowTS })},
		{name: "the same status", cur: soldByDeal, in: patio.VehicleInput{Status: status(patio.VehicleSold)}, want: soldByDeal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w patio.Write[patio.Vehicle]
			s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t, UpdateFn: holding(t, vehicleID, tt.cur, &w)}
			got, err := patio.NewVehicles(s).WithClock(clock).Update(context.Background(), team, vehicleID, tt.in)
			if err != nil {
				t.Fatalf("Update(%s) = %v; want no error", members(tt.in), err)
			}
			if w.Changed != tt.changed {
				t.Errorf("Update(%s) writes Changed = %v; want %v", members(tt.in), w.Changed, tt.changed)
			}
			if d := diff(w.Record, tt.want); d != "" {
				t.Errorf("Update(%s) writes a record that differs: %s", members(tt.in), d)
			}
			if w.Record.Revision != tt.cur.Revision {
				t.Errorf("Update(%s) writes revision %d; want %d, the one read (the store sets it)", members(tt.in), w.Record.Revision, tt.cur.Revision)
			}
			if d := diff(got, tt.want); d != "" {
				t.Errorf("Update(%s) returns a record that differs from the store's: %s", members(tt.in), d)
			}
		})
	}
}

func TestServiceUpdateRefused(t *testing.T) {
	tests := []struct {
		name string
		cur  patio.Vehicle
		in   patio.VehicleInput
		kind patio.Kind
	}{
		{name: "null brand", cur: stock, in: patio.VehicleInput{Brand: patio.Null[string]()}, kind: patio.KindInvalid},
		{name: "a vehicle sold by a deal, back to ativo", cur: soldByDeal, in: patio.VehicleInput{Status: status(patio.VehicleActive)},
			kind: patio.KindConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w patio.Write[patio.Vehicle]
			s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t, UpdateFn: holding(t, vehicleID, tt.cur, &w)}
			_, err := patio.NewVehicles(s).WithClock(clock).Update(context.Background(), team, vehicleID, tt.in)
			if !patio.IsKind(err, tt.kind) {
				t.Errorf("Update(%s) = %v; want kind %d", members(tt.in), err, tt.kind)
			}
		})
	}
}

func TestServiceArchive(t *testing.T) {
	archived := stock.Archive()
	tests := []struct {
		name    string
		cur     patio.Vehicle
		changed bool
		want    patio.Vehicle
	}{
		{name: "ativo", cur: stock, changed: true, want: with(archived, func(v *patio.Vehicle) { v.UpdatedAt = nowTS })},
		{name: "already archived", cur: archived, want: archived},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w patio.Write[patio.Vehicle]
			s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t, UpdateFn: holding(t, vehicleID, tt.cur, &w)}
			if _, err := patio.NewVehicles(s).WithClock(clock).Archive(context.Background(), team, vehicleID); err != nil {
				t.Fatalf("Archive(%s) = %v; want no error", vehicleID, err)
			}
			if w.Changed != tt.changed {
				t.Errorf("Archive(%s) writes Changed = %v; want %v", vehicleID, w.Changed, tt.changed)
			}
			if d := diff(w.Record, tt.want); d != "" {
				t.Errorf("Archive(%s) writes a record that differs: %s", vehicleID, d)
			}
		})
	}
}

func TestServiceCreate(t *testing.T) {
	var w patio.Write[patio.Vehicle]
	s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t, CreateFn: func(_ context.Context, got patio.Write[patio.Vehicle]) (patio.Vehicle, error) {
		w = got
		return got.Record, nil
	}}
	if _, err := patio.NewVehicles(s).WithClock(clock).Create(context.Background(), team, argo); err != nil {
		t.Fatalf("Create(%s) = %v; want no error", members(argo), err)
	}
	if !w.Changed {
		t.Errorf("Create(%s) writes Changed = false; want true", members(argo))
	}
	if id, ok := patio.ParseID(w.Record.ID); !ok || id != w.Record.ID {
		t.Errorf("Create(%s) writes id %q; want a UUID in canonical form", members(argo), w.Record.ID)
	}
	if w.Record.TeamID != team || w.Record.CreatedAt != nowTS || w.Record.UpdatedAt != nowTS || w.Record.Revision != 0 {
		t.Errorf("Create(%s) writes team %q, created_at %s, updated_at %s, revision %d; want %q, %s, %s, 0 (the store sets it)",
			members(argo), w.Record.TeamID, w.Record.CreatedAt, w.Record.UpdatedAt, w.Record.Revision, team, nowTS, nowTS)
	}
}

// TestServiceIDs checks that an id that is not a UUID is not found without asking the store, and
// that the store is asked with the canonical (lower-case) form of one that is.
func TestServiceIDs(t *testing.T) {
	ops := []struct {
		name string
		call func(svc patio.Vehicles, id string) error
	}{
		{name: "Get", call: func(svc patio.Vehicles, id string) error {
			_, err := svc.Get(context.Background(), team, id)
			return err
		}},
		{name: "Update", call: func(svc patio.Vehicles, id string) error {
			_, err := svc.Update(context.Background(), team, id, patio.VehicleInput{Price: patio.Some(money.Cents(1))})
			return err
		}},
		{name: "Archive", call: func(svc patio.Vehicles, id string) error {
			_, err := svc.Archive(context.Background(), team, id)
			return err
		}},
	}
	for _, op := range ops {
		for _, id := range []string{"", "42", "argo", vehicleID[:35], vehicleID + "0", "{" + vehicleID[:34] + "}",
			strings.ReplaceAll(vehicleID, "-", ""), strings.Replace(vehicleID, "a", "g", 1)} {
			t.Run(op.name+" "+id, func(t *testing.T) {
				svc := patio.NewVehicles(&fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t})
				if err := op.call(svc, id); !patio.IsKind(err, patio.KindNotFound) {
					t.Errorf("%s(%q) = %v; want KindNotFound", op.name, id, err)
				}
			})
		}
		t.Run(op.name+" in capitals", func(t *testing.T) {
			var asked []string
			var w patio.Write[patio.Vehicle]
			s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t,
				GetFn: func(_ context.Context, _, id string) (patio.Vehicle, error) {
					asked = append(asked, id)
					return stock, nil
				},
				UpdateFn: func(ctx context.Context, teamID, id string, change func(patio.Vehicle) (patio.Write[patio.Vehicle], error)) (patio.Vehicle, error) {
					asked = append(asked, id)
					return holding(t, id, stock, &w)(ctx, teamID, id, change)
				}}
			id := strings.ToUpper(vehicleID)
			if err := op.call(patio.NewVehicles(s), id); err != nil {
				t.Fatalf("%s(%q) = %v; want no error", op.name, id, err)
			}
			if want := []string{vehicleID}; !reflect.DeepEqual(asked, want) {
				t.Errorf("%s(%q) asks the store for %q; want %q", op.name, id, asked, want)
			}
		})
	}
}

func TestServiceList(t *testing.T) {
	defaults := patio.ListQuery{Page: patio.Some(1), Limit: patio.Some(patio.DefaultLimit), Sort: "created_at", Desc: true,
		Status: []string{string(patio.VehicleActive), string(patio.VehicleReserved), string(patio.VehicleSold)}}
	tests := []struct {
		name string
		q    patio.ListQuery
		// want is the list parameters the store is asked with; when wantErr is set the list
		// fails with a KindInvalid error containing it, without asking the store.
		want    patio.ListQuery
		wantErr string
	}{
		{name: "defaults", want: defaults},
		{name: "arquivado named", q: patio.ListQuery{Status: []string{string(patio.VehicleArchived)}},
			want: with(defaults, func(q *patio.ListQuery) { q.Status = []string{string(patio.VehicleArchived)} })},
		{name: "every parameter at a bound", q: patio.ListQuery{Page: patio.Some(1), Limit: patio.Some(100), Sort: "price"},
			want: with(defaults, func(q *patio.ListQuery) { q.Limit, q.Sort, q.Desc = patio.Some(100), "price", false })},
		{name: "limit 0", q: patio.ListQuery{Limit: patio.Some(0)}, wantErr: "limit must be between 1 and 100"},
		{name: "limit 101", q: patio.ListQuery{Limit: patio.Some(101)}, wantErr: "limit must be between 1 and 100"},
		{name: "limit -1", q: patio.ListQuery{Limit: patio.Some(-1)}, wantErr: "limit must be between 1 and 100"},
		{name: "page 0", q: patio.ListQuery{Page: patio.Some(0)}, wantErr: "page must be an integer of at least 1"},
		{name: "unknown sort", q: patio.ListQuery{Sort: "color"}, wantErr: "sort must be one of"},
		{name: "unknown status", q: patio.ListQuery{Status: []string{"ativo", "sold"}}, wantErr: "status must be a comma-separated list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked *patio.VehicleQuery
			s := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t}
			if tt.wantErr == "" {
				s.ListFn = func(_ context.Context, teamID string, q patio.VehicleQuery) ([]patio.Vehicle, int, error) {
					asked = &q
					return []patio.Vehicle{stock}, 41, nil
				}
			}
			page, err := patio.NewVehicles(s).List(context.Background(), team, patio.VehicleQuery{ListQuery: tt.q})
			if tt.wantErr != "" {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("List(%+v) = %v; want KindInvalid containing %q", tt.q, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("List(%+v) = %v; want no error", tt.q, err)
			}
			if asked == nil || !reflect.DeepEqual(asked.ListQuery, tt.want) {
				t.Errorf("List(%+v) asks the store with %+v; want %+v", tt.q, asked, tt.want)
			}
			if !reflect.DeepEqual(page.List, tt.want) || page.Total != 41 || len(page.Items) != 1 {
				t.Errorf("List(%+v) = %+v; want the store's 1 item of 41, listed with %+v", tt.q, page, tt.want)
			}
		})
	}
}

// TestDealsUpdate checks the deal use cases' wiring: the vehicle read for the rules is the deal
// team's, and a winning write is a change that sells the vehicle.
func TestDealsUpdate(t *testing.T) {
	tests := []struct {
		name string
		cur  patio.Deal
		in   patio.DealInput
		want patio.Deal // the write's record
		also int        // the number of other records the write changes
	}{
		{name: "win", cur: openDeal, in: patio.DealInput{Status: status(patio.DealWon)}, also: 1,
			want: with(openDeal, func(d *patio.Deal) { d.Status, d.ClosedAt, d.UpdatedAt = patio.DealWon, ptr(nowTS), nowTS })},
		{name: "back from the archive as ganho", cur: archivedWon, in: patio.DealInput{Status: status(patio.DealWon)},
			want: with(wonDeal, func(d *patio.Deal) { d.UpdatedAt = nowTS })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w patio.Write[patio.Deal]
			deals := &fakeStore[patio.Deal, patio.DealQuery]{t: t, UpdateFn: holding(t, dealID, tt.cur, &w)}
			vehicles := &fakeStore[patio.Vehicle, patio.VehicleQuery]{t: t,
				GetFn: func(ctx context.Context, teamID, id string) (patio.Vehicle, error) {
					if teamID != tt.cur.TeamID {
						t.Errorf("vehicles.Get(%q, %q); want the deal's team %q", teamID, id, tt.cur.TeamID)
					}
					return teamVehicles(ctx, id)
				}}
			if _, err := patio.NewDeals(deals, vehicles).WithClock(clock).Update(context.Background(), team, dealID, tt.in); err != nil {
				t.Fatalf("Update(%s) = %v; want no error", members(tt.in), err)
			}
			if !w.Changed || len(w.Also) != tt.also {
				t.Errorf("Update(%s) writes Changed = %v with %d other records; want true with %d", members(tt.in), w.Changed, len(w.Also), tt.also)
			}
			if d := diff(w.Record, tt.want); d != "" {
				t.Errorf("Update(%s) writes a record that differs: %s", members(tt.in), d)
			}
		})
	}
}

// auditFn is a patio.Auditor calling its function.
type auditFn func(ctx context.Context, e patio.AuditEntry) error

func (f auditFn) RecordAudit(ctx context.Context, e patio.AuditEntry) error { return f(ctx, e) }

// A status change is audited by what it did (activity.complete, activity.cancel, ...); an edit of
// other fields as an update.
func TestAuditNamesTransitions(t *testing.T) {
	id, now := patio.NewID()
	a, err := patio.NewActivity("team", id, now, patio.ActivityInput{Type: patio.Some("call"), Title: patio.Some("Ligar")})
	if err != nil {
		t.Fatal(err)
	}
	cur := a.Record
	store := &fakeStore[patio.Activity, patio.ActivityQuery]{t: t,
		UpdateFn: func(ctx context.Context, teamID, id string, change func(cur patio.Activity) (patio.Write[patio.Activity], error)) (patio.Activity, error) {
			w, err := change(cur)
			if err == nil && w.Changed {
				cur = w.Record
			}
			return cur, err
		}}
	var actions []string
	svc := patio.NewActivities(store).WithAudit(auditFn(func(_ context.Context, e patio.AuditEntry) error {
		actions = append(actions, e.Action)
		return nil
	}), "activity")
	ctx := context.Background()
	for _, in := range []patio.ActivityInput{{Status: patio.Some(string(patio.ActivityInProgress))}, {Title: patio.Some("Ligar de novo")},
		{Status: patio.Some(string(patio.ActivityCompleted))}, {Status: patio.Some(string(patio.ActivityPending))}} {
		if _, err := svc.Update(ctx, "team", id, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Archive(ctx, "team", id); err != nil {
		t.Fatal(err)
	}
	want := []string{"activity.start", "activity.update", "activity.complete", "activity.reopen", "activity.cancel"}
	if !reflect.DeepEqual(actions, want) {
		t.Errorf("audited %v; want %v", actions, want)
	}
}
