package patio_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The instants of the deal and vehicle cases: records were written at earlier; requests run at now.
var (
	now     = time.Date(2026, 3, 14, 15, 4, 5, 0, time.UTC)
	nowTS   = patio.NewTimestamp(now)
	earlier = patio.NewTimestamp(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
)

const (
	team         = "team"
	dealID       = "0195a000-0000-7000-8000-00000000d001"
	otherDealID  = "0195a000-0000-7000-8000-00000000d002"
	buyerID      = "0195a000-0000-7000-8000-00000000c001"
	otherBuyerID = "0195a000-0000-7000-8000-00000000c002"
	carID        = "0195a000-0000-7000-8000-00000000a001" // ativo
	reservedID   = "0195a000-0000-7000-8000-00000000a002" // reservado
	wonCarID     = "0195a000-0000-7000-8000-00000000a003" // vendido by the deal dealID
	takenCarID   = "0195a000-0000-7000-8000-00000000a004" // vendido by the deal otherDealID
	soldCarID    = "0195a000-0000-7000-8000-00000000a005" // vendido outside the pipeline
	shelvedCarID = "0195a000-0000-7000-8000-00000000a006" // arquivado
	strangerID   = "0195a000-0000-7000-8000-00000000a007" // not a vehicle of the team
)

func ptr[T any](v T) *T { return &v }

// with returns a copy of v changed by f: a fixture and, next to it, how a case differs from it.
func with[T any](v T, f func(*T)) T {
	f(&v)
	return v
}

// stockVehicle is a vehicle of the team with the given id and status; a vendido one was sold at
// earlier, by the deal soldBy when it is not "".
func stockVehicle(id string, status patio.VehicleStatus, soldBy string) patio.Vehicle {
	v := patio.Vehicle{ID: id, TeamID: team, Title: "Fiat Argo Drive 1.0 2025", Brand: "Fiat", Model: "Argo",
		Version: ptr("Drive 1.0"), ModelYear: ptr(2025), ManufactureYear: ptr(2024), Price: 8_990_000,
		Phase: "disponivel", Status: status, CreatedAt: earlier, UpdatedAt: earlier, Revision: 3}
	if status == patio.VehicleSold {
		v.SoldAt = ptr(earlier)
		if soldBy != "" {
			v.SoldDealID = ptr(soldBy)
		}
	}
	return v
}

// The team's vehicles the deal cases name.
var (
	car        = stockVehicle(carID, patio.VehicleActive, "")
	reserved   = stockVehicle(reservedID, patio.VehicleReserved, "")
	wonCar     = stockVehicle(wonCarID, patio.VehicleSold, dealID)
	takenCar   = stockVehicle(takenCarID, patio.VehicleSold, otherDealID)
	soldCar    = stockVehicle(soldCarID, patio.VehicleSold, "")
	shelvedCar = stockVehicle(shelvedCarID, patio.VehicleArchived, "")
)

// vehiclesOf is the fake VehicleLookup: a vehicle of vs, else a KindNotFound error, as the store
// answers for an unknown id or another team's vehicle.
func vehiclesOf(vs ...patio.Vehicle) patio.VehicleLookup {
	return func(_ context.Context, id string) (patio.Vehicle, error) {
		for _, v := range vs {
			if v.ID == id {
				return v, nil
			}
		}
		return patio.Vehicle{}, patio.NotFoundf("vehicle %s not found", id)
	}
}

// teamVehicles is the lookup of every case that does not give its own.
var teamVehicles = vehiclesOf(car, reserved, wonCar, takenCar, soldCar, shelvedCar)

// failingVehicles is a lookup whose store is down.
func failingVehicles(context.Context, string) (patio.Vehicle, error) {
	return patio.Vehicle{}, patio.Internal(errors.New("dynamodb: connection reset"))
}

// soldBy returns v as a deal winning it at now leaves it.
func soldBy(v patio.Vehicle, deal string) patio.Vehicle {
	v.Status = patio.VehicleSold
	v.SoldAt = ptr(nowTS)
	v.SoldDealID = ptr(deal)
	v.UpdatedAt = nowTS
	return v
}

// requirement is a patio.Requirement without its error, to compare.
type requirement struct {
	Resource string
	ID       string
	Statuses []string
}

func activeClient(id string) requirement {
	return requirement{Resource: patio.ResourceClient, ID: id, Statuses: []string{string(patio.ClientActive)}}
}

func dealableVehicle(id string) requirement {
	return requirement{Resource: patio.ResourceVehicle, ID: id, Statuses: []string{string(patio.VehicleActive), string(patio.VehicleReserved)}}
}

// requirements returns the write's requirements in a stable order, failing the test for one whose
// error is not a KindConflict (the store answers it as a 422).
func requirements(t *testing.T, rs []patio.Requirement) []requirement {
	t.Helper()
	var got []requirement
	for _, r := range rs {
		if !patio.IsKind(r.Err, patio.KindConflict) {
			t.Errorf("requirement on %s %s has error %v; want KindConflict", r.Resource, r.ID, r.Err)
		}
		got = append(got, requirement{Resource: r.Resource, ID: r.ID, Statuses: r.Statuses})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Resource < got[j].Resource })
	return got
}

// sales returns the vehicles a write sells: each Revised of its Also as the vehicle before and
// after, failing the test for a Revised of another type.
func sales(t *testing.T, also []patio.Revised) (cur, next []patio.Vehicle) {
	t.Helper()
	for _, r := range also {
		c, ok1 := r.Cur.(patio.Vehicle)
		n, ok2 := r.Next.(patio.Vehicle)
		if !ok1 || !ok2 {
			t.Fatalf("Also holds Revised{%T, %T}; want vehicles", r.Cur, r.Next)
		}
		cur, next = append(cur, c), append(next, n)
	}
	return cur, next
}

// The deals of the transition cases, one per row of the transition table (openapi.yaml's
// updateDeal).
var (
	openDeal = patio.Deal{ID: dealID, TeamID: team, Title: "Argo para Ana", ClientID: buyerID, VehicleID: ptr(carID),
		Value: ptr(money.Cents(8_500_000)), Phase: "proposta", Status: patio.DealOpen, PaymentMethod: ptr("pix"),
		CreatedAt: earlier, UpdatedAt: earlier, Revision: 2}
	wonDeal = with(openDeal, func(d *patio.Deal) {
		d.Status, d.VehicleID, d.ClosedAt = patio.DealWon, ptr(wonCarID), ptr(earlier)
	})
	lostDeal = with(openDeal, func(d *patio.Deal) {
		d.Status, d.LostReason, d.ClosedAt = patio.DealLost, ptr("preco"), ptr(earlier)
	})
	// archivedWon was archived after winning: its vehicle's sold_deal_id names it.
	archivedWon  = wonDeal.Archive()
	archivedOpen = openDeal.Archive()
	archivedLost = lostDeal.Archive()
	// archivedLostTaken had lost; another deal has won its vehicle since.
	archivedLostTaken = with(archivedLost, func(d *patio.Deal) { d.VehicleID = ptr(takenCarID) })
)

func status[S ~string](s S) patio.Opt[string] { return patio.Some(string(s)) }

// members formats the members present in a typed input (PUT's "absent" left out): {Status:ganho
// VehicleID:null}.
func members(in any) string {
	v := reflect.ValueOf(in)
	var b strings.Builder
	for i := 0; i < v.NumField(); i++ {
		o := v.Field(i)
		if !o.FieldByName("Present").Bool() {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.Type().Field(i).Name + ":")
		if o.FieldByName("Null").Bool() {
			b.WriteString("null")
		} else {
			fmt.Fprint(&b, o.FieldByName("Value").Interface())
		}
	}
	return "{" + b.String() + "}"
}

// diff lists the fields in which two records of one type differ, pointers followed: "" when they
// are equal.
func diff(got, want any) string {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	var out []string
	for i := 0; i < g.NumField(); i++ {
		if a, b := g.Field(i).Interface(), w.Field(i).Interface(); !reflect.DeepEqual(a, b) {
			out = append(out, fmt.Sprintf("%s %s, want %s", g.Type().Field(i).Name, show(g.Field(i)), show(w.Field(i))))
		}
	}
	return strings.Join(out, "; ")
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		v = v.Elem()
	}
	return fmt.Sprint(v.Interface())
}

type dealApplyCase struct {
	name   string
	cur    patio.Deal
	in     patio.DealInput
	lookup patio.VehicleLookup // teamVehicles when nil
	// want is the write's record; nil when the case fails with an error of kind wantErr.
	want    *patio.Deal
	wantErr patio.Kind
	// sells is the vehicle, as looked up, that the write sells to the deal; nil when Also is empty.
	sells    *patio.Vehicle
	requires []requirement
}

// dealApplyCases is the transition table of openapi.yaml's updateDeal, every (from, to) pair, and
// the rules about the vehicle and client a deal names.
func dealApplyCases() []dealApplyCase {
	won := func(d patio.Deal) *patio.Deal {
		return ptr(with(d, func(d *patio.Deal) { d.Status, d.ClosedAt, d.LostReason = patio.DealWon, ptr(nowTS), nil }))
	}
	return []dealApplyCase{
		// From ativo.
		{name: "ativo to ativo changes nothing", cur: openDeal, in: patio.DealInput{Status: status(patio.DealOpen)},
			want: &openDeal},
		{name: "ativo to ganho sells the vehicle", cur: openDeal, in: patio.DealInput{Status: status(patio.DealWon)},
			want: won(openDeal), sells: &car},
		{name: "ativo to ganho with a reservado vehicle",
			cur:  with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(reservedID) }),
			in:   patio.DealInput{Status: status(patio.DealWon)},
			want: won(with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(reservedID) })), sells: &reserved},
		{name: "ativo to ganho naming the vehicle in the same request",
			cur:  with(openDeal, func(d *patio.Deal) { d.VehicleID = nil }),
			in:   patio.DealInput{Status: status(patio.DealWon), VehicleID: patio.Some(reservedID)},
			want: won(with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(reservedID) })), sells: &reserved},
		{name: "ativo to ganho changing the vehicle", cur: openDeal,
			in:   patio.DealInput{Status: status(patio.DealWon), VehicleID: patio.Some(reservedID)},
			want: won(with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(reservedID) })), sells: &reserved},
		{name: "ativo to ganho without vehicle_id", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = nil }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindInvalid},
		{name: "ativo to ganho clearing vehicle_id", cur: openDeal,
			in: patio.DealInput{Status: status(patio.DealWon), VehicleID: patio.Null[string]()}, wantErr: patio.KindInvalid},
		{name: "ativo to ganho of a vehicle another deal won", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(takenCarID) }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "ativo to ganho of a vehicle sold outside the pipeline", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(soldCarID) }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "ativo to ganho of an archived vehicle", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(shelvedCarID) }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "ativo to ganho of a vehicle not in the team", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(strangerID) }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "ativo to ganho when the vehicles cannot be read", cur: openDeal, lookup: failingVehicles,
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindInternal},
		{name: "ativo to perdido with lost_reason", cur: openDeal,
			in: patio.DealInput{Status: status(patio.DealLost), LostReason: patio.Some("desistiu")},
			want: ptr(with(openDeal, func(d *patio.Deal) {
				d.Status, d.LostReason, d.ClosedAt = patio.DealLost, ptr("desistiu"), ptr(nowTS)
			}))},
		{name: "ativo to perdido without lost_reason", cur: openDeal, in: patio.DealInput{Status: status(patio.DealLost)},
			wantErr: patio.KindInvalid},
		{name: "ativo to perdido with a null lost_reason", cur: openDeal,
			in: patio.DealInput{Status: status(patio.DealLost), LostReason: patio.Null[string]()}, wantErr: patio.KindInvalid},
		{name: "ativo to arquivado leaves the vehicle alone", cur: openDeal, in: patio.DealInput{Status: status(patio.DealArchived)},
			want: &archivedOpen},

		// From ganho: a won deal is final.
		{name: "ganho to ativo", cur: wonDeal, in: patio.DealInput{Status: status(patio.DealOpen)}, wantErr: patio.KindConflict},
		{name: "ganho to ganho changes nothing", cur: wonDeal, in: patio.DealInput{Status: status(patio.DealWon)}, want: &wonDeal},
		{name: "ganho to perdido", cur: wonDeal,
			in: patio.DealInput{Status: status(patio.DealLost), LostReason: patio.Some("preco")}, wantErr: patio.KindConflict},
		{name: "ganho to perdido without lost_reason is the request's own fault first", cur: wonDeal,
			in: patio.DealInput{Status: status(patio.DealLost)}, wantErr: patio.KindInvalid},
		{name: "ganho to arquivado keeps closed_at", cur: wonDeal, in: patio.DealInput{Status: status(patio.DealArchived)},
			want: &archivedWon},
		{name: "ganho changing vehicle_id", cur: wonDeal, in: patio.DealInput{VehicleID: patio.Some(carID)},
			wantErr: patio.KindConflict},
		{name: "ganho with its vehicle_id in capitals", cur: wonDeal, in: patio.DealInput{VehicleID: patio.Some(strings.ToUpper(wonCarID))},
			want: &wonDeal},
		{name: "ganho editing its notes", cur: wonDeal, in: patio.DealInput{Notes: patio.Some("entregue")},
			want: ptr(with(wonDeal, func(d *patio.Deal) { d.Notes = ptr("entregue") }))},

		// From perdido.
		{name: "perdido to ativo reopens", cur: lostDeal, in: patio.DealInput{Status: status(patio.DealOpen)},
			want: &openDeal},
		{name: "perdido to ganho", cur: lostDeal, in: patio.DealInput{Status: status(patio.DealWon)},
			want: won(lostDeal), sells: &car},
		{name: "perdido to ganho without vehicle_id", cur: with(lostDeal, func(d *patio.Deal) { d.VehicleID = nil }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindInvalid},
		{name: "perdido to ganho of a vehicle another deal won", cur: with(lostDeal, func(d *patio.Deal) { d.VehicleID = ptr(takenCarID) }),
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "perdido to perdido changes nothing", cur: lostDeal, in: patio.DealInput{Status: status(patio.DealLost)},
			want: &lostDeal},
		{name: "perdido with another lost_reason keeps closed_at", cur: lostDeal, in: patio.DealInput{LostReason: patio.Some("sem_contato")},
			want: ptr(with(lostDeal, func(d *patio.Deal) { d.LostReason = ptr("sem_contato") }))},
		{name: "perdido clearing lost_reason", cur: lostDeal, in: patio.DealInput{LostReason: patio.Null[string]()},
			wantErr: patio.KindInvalid},
		{name: "perdido to arquivado keeps closed_at and lost_reason", cur: lostDeal,
			in: patio.DealInput{Status: status(patio.DealArchived)}, want: &archivedLost},

		// From arquivado, after winning: only back as ganho.
		{name: "arquivado after winning to ativo", cur: archivedWon, in: patio.DealInput{Status: status(patio.DealOpen)},
			wantErr: patio.KindConflict},
		{name: "arquivado after winning to perdido", cur: archivedWon,
			in: patio.DealInput{Status: status(patio.DealLost), LostReason: patio.Some("preco")}, wantErr: patio.KindConflict},
		{name: "arquivado after winning to ganho, its vehicle already sold to it", cur: archivedWon,
			in: patio.DealInput{Status: status(patio.DealWon)}, want: &wonDeal},
		{name: "arquivado after winning to ganho with another vehicle", cur: archivedWon,
			in: patio.DealInput{Status: status(patio.DealWon), VehicleID: patio.Some(carID)}, wantErr: patio.KindConflict},
		{name: "arquivado after winning to arquivado changes nothing", cur: archivedWon,
			in: patio.DealInput{Status: status(patio.DealArchived)}, want: &archivedWon},
		{name: "arquivado after winning when the vehicles cannot be read", cur: archivedWon, lookup: failingVehicles,
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindInternal},

		// From arquivado, without having won: as if from ativo.
		{name: "arquivado to ativo", cur: archivedOpen, in: patio.DealInput{Status: status(patio.DealOpen)}, want: &openDeal},
		{name: "arquivado to ganho", cur: archivedOpen, in: patio.DealInput{Status: status(patio.DealWon)},
			want: won(openDeal), sells: &car},
		{name: "arquivado to perdido with lost_reason", cur: archivedOpen,
			in: patio.DealInput{Status: status(patio.DealLost), LostReason: patio.Some("outro")},
			want: ptr(with(openDeal, func(d *patio.Deal) {
				d.Status, d.LostReason, d.ClosedAt = patio.DealLost, ptr("outro"), ptr(nowTS)
			}))},
		{name: "arquivado to perdido without lost_reason", cur: archivedOpen, in: patio.DealInput{Status: status(patio.DealLost)},
			wantErr: patio.KindInvalid},
		{name: "arquivado to arquivado changes nothing", cur: archivedOpen, in: patio.DealInput{Status: status(patio.DealArchived)},
			want: &archivedOpen},
		{name: "arquivado after losing to ativo clears closed_at and lost_reason", cur: archivedLost,
			in: patio.DealInput{Status: status(patio.DealOpen)}, want: &openDeal},
		{name: "arquivado after losing to ganho", cur: archivedLost, in: patio.DealInput{Status: status(patio.DealWon)},
			want: won(lostDeal), sells: &car},
		{name: "arquivado after losing, its vehicle won by another deal, to ganho", cur: archivedLostTaken,
			in: patio.DealInput{Status: status(patio.DealWon)}, wantErr: patio.KindConflict},
		{name: "arquivado after losing, its vehicle won by another deal, to ativo", cur: archivedLostTaken,
			in:   patio.DealInput{Status: status(patio.DealOpen)},
			want: ptr(with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(takenCarID) }))},

		// The records a deal names: the store checks them in the deal's write.
		{name: "new client_id requires an active client", cur: openDeal, in: patio.DealInput{ClientID: patio.Some(otherBuyerID)},
			want:     ptr(with(openDeal, func(d *patio.Deal) { d.ClientID = otherBuyerID })),
			requires: []requirement{activeClient(otherBuyerID)}},
		{name: "same client_id in capitals requires nothing", cur: openDeal, in: patio.DealInput{ClientID: patio.Some(strings.ToUpper(buyerID))},
			want: &openDeal},
		{name: "setting vehicle_id requires a dealable vehicle", cur: with(openDeal, func(d *patio.Deal) { d.VehicleID = nil }),
			in: patio.DealInput{VehicleID: patio.Some(carID)}, want: &openDeal, requires: []requirement{dealableVehicle(carID)}},
		{name: "changing vehicle_id requires a dealable vehicle", cur: openDeal, in: patio.DealInput{VehicleID: patio.Some(takenCarID)},
			want:     ptr(with(openDeal, func(d *patio.Deal) { d.VehicleID = ptr(takenCarID) })),
			requires: []requirement{dealableVehicle(takenCarID)}},
		{name: "another phase starts the days in it", cur: openDeal, in: patio.DealInput{Phase: patio.Some("visita")},
			want: ptr(with(openDeal, func(d *patio.Deal) { d.Phase, d.PhaseSince = "visita", ptr(nowTS) }))},
		{name: "the same phase keeps the days in it", cur: openDeal, in: patio.DealInput{Phase: patio.Some(openDeal.Phase)},
			want: &openDeal},
		{name: "same vehicle_id requires nothing", cur: openDeal, in: patio.DealInput{VehicleID: patio.Some(carID)}, want: &openDeal},
		{name: "clearing vehicle_id requires nothing", cur: openDeal, in: patio.DealInput{VehicleID: patio.Null[string]()},
			want: ptr(with(openDeal, func(d *patio.Deal) { d.VehicleID = nil }))},
		{name: "changing both", cur: openDeal,
			in: patio.DealInput{ClientID: patio.Some(otherBuyerID), VehicleID: patio.Some(reservedID)},
			want: ptr(with(openDeal, func(d *patio.Deal) {
				d.ClientID, d.VehicleID = otherBuyerID, ptr(reservedID)
			})),
			requires: []requirement{activeClient(otherBuyerID), dealableVehicle(reservedID)}},
		{name: "winning with a new client", cur: openDeal,
			in:   patio.DealInput{Status: status(patio.DealWon), ClientID: patio.Some(otherBuyerID)},
			want: won(with(openDeal, func(d *patio.Deal) { d.ClientID = otherBuyerID })), sells: &car,
			requires: []requirement{activeClient(otherBuyerID)}},
		{name: "null title", cur: openDeal, in: patio.DealInput{Title: patio.Null[string]()}, wantErr: patio.KindInvalid},
		{name: "null client_id", cur: openDeal, in: patio.DealInput{ClientID: patio.Null[string]()}, wantErr: patio.KindInvalid},
		{name: "null status", cur: openDeal, in: patio.DealInput{Status: patio.Null[string]()}, wantErr: patio.KindInvalid},
		{name: "vehicle_id not a UUID", cur: openDeal, in: patio.DealInput{VehicleID: patio.Some("argo")}, wantErr: patio.KindInvalid},
		{name: "unknown status", cur: openDeal, in: patio.DealInput{Status: status("fechado")}, wantErr: patio.KindInvalid},
		{name: "lost_reason on an open deal", cur: openDeal, in: patio.DealInput{LostReason: patio.Some("preco")},
			wantErr: patio.KindInvalid},
	}
}

func TestDealApply(t *testing.T) {
	for _, tt := range dealApplyCases() {
		t.Run(tt.name, func(t *testing.T) {
			lookup := tt.lookup
			if lookup == nil {
				lookup = teamVehicles
			}
			w, err := tt.cur.Apply(context.Background(), tt.in, now, lookup)
			if tt.want == nil {
				if err == nil || patio.KindOf(err) != tt.wantErr {
					t.Fatalf("Apply(%s) = %v; want an error of kind %d", members(tt.in), err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s) = %v; want no error", members(tt.in), err)
			}
			if d := diff(w.Record, *tt.want); d != "" {
				t.Errorf("Apply(%s).Record differs: %s", members(tt.in), d)
			}
			if got := requirements(t, w.Requires); !reflect.DeepEqual(got, tt.requires) {
				t.Errorf("Apply(%s).Requires = %v; want %v", members(tt.in), got, tt.requires)
			}
			cur, next := sales(t, w.Also)
			switch {
			case tt.sells == nil && len(w.Also) > 0:
				t.Errorf("Apply(%s).Also = %+v; want none", members(tt.in), w.Also)
			case tt.sells != nil && len(w.Also) != 1:
				t.Errorf("Apply(%s).Also has %d records; want the sale of %s", members(tt.in), len(w.Also), tt.sells.ID)
			case tt.sells != nil:
				if d := diff(cur[0], *tt.sells); d != "" {
					t.Errorf("Apply(%s).Also[0].Cur is not the vehicle read: %s", members(tt.in), d)
				}
				if d := diff(next[0], soldBy(*tt.sells, tt.cur.ID)); d != "" {
					t.Errorf("Apply(%s).Also[0].Next differs: %s", members(tt.in), d)
				}
			}
			if w.Changed {
				t.Errorf("Apply(%s).Changed = true; want false (the use cases decide it)", members(tt.in))
			}
		})
	}
}

// TestDealTransitionTableIsComplete makes TestDealApply cover every (from, to) pair of statuses:
// a status added to DealStatuses fails here until its row and column have cases.
func TestDealTransitionTableIsComplete(t *testing.T) {
	covered := map[[2]string]bool{}
	for _, tt := range dealApplyCases() {
		to := tt.cur.Status
		if tt.in.Status.Set() {
			to = patio.DealStatus(tt.in.Status.Value)
		}
		covered[[2]string{string(tt.cur.Status), string(to)}] = true
	}
	for _, from := range patio.DealStatuses {
		for _, to := range patio.DealStatuses {
			if !covered[[2]string{from, to}] {
				t.Errorf("dealApplyCases has no case from %s to %s", from, to)
			}
		}
	}
}

func TestNewDeal(t *testing.T) {
	base := patio.Deal{ID: dealID, TeamID: team, Title: "Argo para Ana", ClientID: buyerID, Phase: patio.DefaultDealPhase,
		Status: patio.DealOpen, PhaseSince: ptr(nowTS), CreatedAt: nowTS, UpdatedAt: nowTS}
	minimal := patio.DealInput{Title: patio.Some("Argo para Ana"), ClientID: patio.Some(buyerID)}
	tests := []struct {
		name   string
		in     patio.DealInput
		lookup patio.VehicleLookup // teamVehicles when nil
		// want is the write's record; nil when the case fails with an error of kind wantErr,
		// whose message contains wantMsg.
		want     *patio.Deal
		wantErr  patio.Kind
		wantMsg  string
		requires []requirement
	}{
		{name: "title and client_id", in: minimal, want: &base, requires: []requirement{activeClient(buyerID)}},
		{name: "trimmed title, client_id in capitals",
			in:   patio.DealInput{Title: patio.Some("  Argo para Ana "), ClientID: patio.Some(strings.ToUpper(buyerID))},
			want: &base, requires: []requirement{activeClient(buyerID)}},
		{name: "status ativo", in: with(minimal, func(in *patio.DealInput) { in.Status = status(patio.DealOpen) }),
			want: &base, requires: []requirement{activeClient(buyerID)}},
		{name: "phase sent", in: with(minimal, func(in *patio.DealInput) { in.Phase = patio.Some("visita") }),
			want:     ptr(with(base, func(d *patio.Deal) { d.Phase = "visita" })),
			requires: []requirement{activeClient(buyerID)}},
		{name: "value defaults to the vehicle's price", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(carID) }),
			want:     ptr(with(base, func(d *patio.Deal) { d.VehicleID, d.Value = ptr(carID), ptr(car.Price) })),
			requires: []requirement{activeClient(buyerID), dealableVehicle(carID)}},
		{name: "reservado vehicle", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(reservedID) }),
			want:     ptr(with(base, func(d *patio.Deal) { d.VehicleID, d.Value = ptr(reservedID), ptr(reserved.Price) })),
			requires: []requirement{activeClient(buyerID), dealableVehicle(reservedID)}},
		{name: "value sent is kept", in: with(minimal, func(in *patio.DealInput) {
			in.VehicleID, in.Value = patio.Some(carID), patio.Some(money.Cents(8_000_000))
		}),
			want:     ptr(with(base, func(d *patio.Deal) { d.VehicleID, d.Value = ptr(carID), ptr(money.Cents(8_000_000)) })),
			requires: []requirement{activeClient(buyerID), dealableVehicle(carID)}},
		{name: "value zero is kept", in: with(minimal, func(in *patio.DealInput) {
			in.VehicleID, in.Value = patio.Some(carID), patio.Some(money.Cents(0))
		}),
			want:     ptr(with(base, func(d *patio.Deal) { d.VehicleID, d.Value = ptr(carID), ptr(money.Cents(0)) })),
			requires: []requirement{activeClient(buyerID), dealableVehicle(carID)}},
		{name: "value without a vehicle", in: with(minimal, func(in *patio.DealInput) { in.Value = patio.Some(money.Cents(100)) }),
			want:     ptr(with(base, func(d *patio.Deal) { d.Value = ptr(money.Cents(100)) })),
			requires: []requirement{activeClient(buyerID)}},
		{name: "missing title", in: patio.DealInput{ClientID: patio.Some(buyerID)}, wantErr: patio.KindInvalid, wantMsg: "title is required"},
		{name: "null title", in: with(minimal, func(in *patio.DealInput) { in.Title = patio.Null[string]() }),
			wantErr: patio.KindInvalid, wantMsg: "title is required"},
		{name: "blank title", in: with(minimal, func(in *patio.DealInput) { in.Title = patio.Some(" ") }),
			wantErr: patio.KindInvalid, wantMsg: "title must not be empty"},
		{name: "missing client_id", in: patio.DealInput{Title: patio.Some("Argo")}, wantErr: patio.KindInvalid, wantMsg: "client_id is required"},
		{name: "client_id not a UUID", in: with(minimal, func(in *patio.DealInput) { in.ClientID = patio.Some("ana") }),
			wantErr: patio.KindInvalid, wantMsg: "client_id must be a UUID"},
		{name: "status ganho", in: with(minimal, func(in *patio.DealInput) {
			in.Status, in.VehicleID = status(patio.DealWon), patio.Some(carID)
		}), wantErr: patio.KindInvalid, wantMsg: "status must be ativo"},
		{name: "status perdido", in: with(minimal, func(in *patio.DealInput) {
			in.Status, in.LostReason = status(patio.DealLost), patio.Some("preco")
		}), wantErr: patio.KindInvalid, wantMsg: "status must be ativo"},
		{name: "status arquivado", in: with(minimal, func(in *patio.DealInput) { in.Status = status(patio.DealArchived) }),
			wantErr: patio.KindInvalid, wantMsg: "status must be ativo"},
		{name: "null status", in: with(minimal, func(in *patio.DealInput) { in.Status = patio.Null[string]() }),
			wantErr: patio.KindInvalid, wantMsg: "status must not be null"},
		{name: "null phase", in: with(minimal, func(in *patio.DealInput) { in.Phase = patio.Null[string]() }),
			wantErr: patio.KindInvalid, wantMsg: "phase must not be null"},
		{name: "lost_reason on an open deal", in: with(minimal, func(in *patio.DealInput) { in.LostReason = patio.Some("preco") }),
			wantErr: patio.KindInvalid, wantMsg: "lost_reason"},
		{name: "vehicle sold by another deal", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(takenCarID) }),
			wantErr: patio.KindConflict},
		{name: "vehicle sold outside the pipeline", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(soldCarID) }),
			wantErr: patio.KindConflict},
		{name: "archived vehicle", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(shelvedCarID) }),
			wantErr: patio.KindConflict},
		{name: "vehicle not in the team", in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(strangerID) }),
			wantErr: patio.KindConflict},
		{name: "vehicles cannot be read", lookup: failingVehicles,
			in: with(minimal, func(in *patio.DealInput) { in.VehicleID = patio.Some(carID) }), wantErr: patio.KindInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := tt.lookup
			if lookup == nil {
				lookup = teamVehicles
			}
			w, err := patio.NewDeal(context.Background(), team, dealID, now, tt.in, lookup)
			if tt.want == nil {
				if err == nil || patio.KindOf(err) != tt.wantErr || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("NewDeal(%s) = %v; want an error of kind %d containing %q", members(tt.in), err, tt.wantErr, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewDeal(%s) = %v; want no error", members(tt.in), err)
			}
			if d := diff(w.Record, *tt.want); d != "" {
				t.Errorf("NewDeal(%s).Record differs: %s", members(tt.in), d)
			}
			if got := requirements(t, w.Requires); !reflect.DeepEqual(got, tt.requires) {
				t.Errorf("NewDeal(%s).Requires = %v; want %v", members(tt.in), got, tt.requires)
			}
			if len(w.Also) != 0 {
				t.Errorf("NewDeal(%s).Also = %+v; want none", members(tt.in), w.Also)
			}
		})
	}
}

func TestDealArchive(t *testing.T) {
	tests := []struct {
		name string
		cur  patio.Deal
		want patio.Deal
	}{
		{name: "open", cur: openDeal, want: with(openDeal, func(d *patio.Deal) { d.Status = patio.DealArchived })},
		{name: "won keeps closed_at", cur: wonDeal, want: with(wonDeal, func(d *patio.Deal) { d.Status = patio.DealArchived })},
		{name: "archived is unchanged", cur: archivedLost, want: archivedLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := diff(tt.cur.Archive(), tt.want); d != "" {
				t.Errorf("Archive() differs: %s", d)
			}
		})
	}
}
