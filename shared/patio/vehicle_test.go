package patio_test

import (
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

const vehicleID = "0195a000-0000-7000-8000-00000000a101"

// argo is the smallest create input: the required members.
var argo = patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Argo"), Price: patio.Some(money.Cents(8_990_000))}

func TestNewVehicle(t *testing.T) {
	base := patio.Vehicle{ID: vehicleID, TeamID: team, Title: "Fiat Argo", Brand: "Fiat", Model: "Argo", Price: 8_990_000,
		Phase: patio.DefaultVehiclePhase, Status: patio.VehicleActive, CreatedAt: nowTS, UpdatedAt: nowTS}
	in := func(f func(in *patio.VehicleInput)) patio.VehicleInput { return with(argo, f) }
	tests := []struct {
		name string
		in   patio.VehicleInput
		// want is the vehicle built; nil when the case fails with a KindInvalid error whose
		// message contains wantErr.
		want    *patio.Vehicle
		wantErr string
	}{
		{name: "brand, model and price", in: argo, want: &base},
		{name: "trimmed members", in: in(func(in *patio.VehicleInput) { in.Brand, in.Model = patio.Some(" Fiat "), patio.Some("Argo ") }),
			want: &base},
		{name: "title derived from brand, model, version and model_year",
			in: in(func(in *patio.VehicleInput) {
				in.Version, in.ModelYear, in.ManufactureYear = patio.Some("Drive 1.0"), patio.Some(2025), patio.Some(2024)
			}),
			want: ptr(with(base, func(v *patio.Vehicle) {
				v.Title, v.Version, v.ModelYear, v.ManufactureYear = "Fiat Argo Drive 1.0 2025", ptr("Drive 1.0"), ptr(2025), ptr(2024)
			}))},
		{name: "title derived without version", in: in(func(in *patio.VehicleInput) { in.ModelYear = patio.Some(2025) }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Title, v.ModelYear = "Fiat Argo 2025", ptr(2025) }))},
		{name: "title sent is kept", in: in(func(in *patio.VehicleInput) {
			in.Title, in.ModelYear = patio.Some("Argo impecável"), patio.Some(2025)
		}),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Title, v.ModelYear = "Argo impecável", ptr(2025) }))},
		{name: "null title is derived (openapi.yaml: absent or null)", in: in(func(in *patio.VehicleInput) { in.Title = patio.Null[string]() }),
			want: &base},
		{name: "missing brand", in: in(func(in *patio.VehicleInput) { in.Brand = patio.Opt[string]{} }), wantErr: "brand is required"},
		{name: "missing model", in: in(func(in *patio.VehicleInput) { in.Model = patio.Opt[string]{} }), wantErr: "model is required"},
		{name: "missing price", in: in(func(in *patio.VehicleInput) { in.Price = patio.Opt[money.Cents]{} }), wantErr: "price is required"},
		{name: "null brand", in: in(func(in *patio.VehicleInput) { in.Brand = patio.Null[string]() }), wantErr: "brand is required"},
		{name: "null price", in: in(func(in *patio.VehicleInput) { in.Price = patio.Null[money.Cents]() }), wantErr: "price is required"},
		{name: "blank model", in: in(func(in *patio.VehicleInput) { in.Model = patio.Some("  ") }), wantErr: "model must not be empty"},
		{name: "nothing sent", in: patio.VehicleInput{}, wantErr: "brand is required"},
		{name: "status reservado", in: in(func(in *patio.VehicleInput) { in.Status = status(patio.VehicleReserved) }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Status = patio.VehicleReserved }))},
		{name: "status vendido", in: in(func(in *patio.VehicleInput) { in.Status = status(patio.VehicleSold) }),
			wantErr: "status must be ativo or reservado when creating a vehicle"},
		{name: "status arquivado", in: in(func(in *patio.VehicleInput) { in.Status = status(patio.VehicleArchived) }),
			wantErr: "status must be ativo or reservado when creating a vehicle"},
		{name: "unknown status", in: in(func(in *patio.VehicleInput) { in.Status = status("sold") }), wantErr: "status must be one of"},
		{name: "null status", in: in(func(in *patio.VehicleInput) { in.Status = patio.Null[string]() }), wantErr: "status must not be null"},
		{name: "phase sent", in: in(func(in *patio.VehicleInput) { in.Phase = patio.Some("avaliacao") }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Phase = "avaliacao" }))},
		{name: "null phase", in: in(func(in *patio.VehicleInput) { in.Phase = patio.Null[string]() }), wantErr: "phase must not be null"},
		{name: "model_year is manufacture_year", in: in(func(in *patio.VehicleInput) {
			in.ManufactureYear, in.ModelYear = patio.Some(2025), patio.Some(2025)
		}),
			want: ptr(with(base, func(v *patio.Vehicle) {
				v.Title, v.ManufactureYear, v.ModelYear = "Fiat Argo 2025", ptr(2025), ptr(2025)
			}))},
		{name: "model_year two after manufacture_year", in: in(func(in *patio.VehicleInput) {
			in.ManufactureYear, in.ModelYear = patio.Some(2023), patio.Some(2025)
		}), wantErr: "model_year must be manufacture_year or the year after it"},
		{name: "model_year before manufacture_year", in: in(func(in *patio.VehicleInput) {
			in.ManufactureYear, in.ModelYear = patio.Some(2025), patio.Some(2024)
		}), wantErr: "model_year must be manufacture_year or the year after it"},
		{name: "next year's model", in: in(func(in *patio.VehicleInput) {
			in.ManufactureYear, in.ModelYear = patio.Some(2027), patio.Some(2027)
		}),
			want: ptr(with(base, func(v *patio.Vehicle) {
				v.Title, v.ManufactureYear, v.ModelYear = "Fiat Argo 2027", ptr(2027), ptr(2027)
			}))},
		{name: "model_year two years ahead", in: in(func(in *patio.VehicleInput) { in.ModelYear = patio.Some(2028) }),
			wantErr: "model_year must be between 1900 and 2027"},
		{name: "manufacture_year two years ahead", in: in(func(in *patio.VehicleInput) { in.ManufactureYear = patio.Some(2028) }),
			wantErr: "manufacture_year must be between 1900 and 2027"},
		{name: "model_year 1899", in: in(func(in *patio.VehicleInput) { in.ModelYear = patio.Some(1899) }),
			wantErr: "model_year must be between 1900 and 2027"},
		{name: "manufacture_year 1900", in: in(func(in *patio.VehicleInput) { in.ManufactureYear = patio.Some(1900) }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.ManufactureYear = ptr(1900) }))},
		{name: "old plate with hyphen, lower case", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Some("abc-1234") }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Plate = ptr("ABC1234") }))},
		{name: "Mercosul plate, lower case", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Some("abc1d23") }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Plate = ptr("ABC1D23") }))},
		{name: "plate with spaces around", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Some(" ABC1234 ") }),
			want: ptr(with(base, func(v *patio.Vehicle) { v.Plate = ptr("ABC1234") }))},
		{name: "null plate", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Null[string]() }), want: &base},
		{name: "plate of the wrong shape", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Some("AB12345") }), wantErr: "plate"},
		{name: "plate too long", in: in(func(in *patio.VehicleInput) { in.Plate = patio.Some("ABC12345") }), wantErr: "plate"},
		{name: "negative mileage", in: in(func(in *patio.VehicleInput) { in.MileageKm = patio.Some(-1) }),
			wantErr: "mileage_km must be between 0"},
		{name: "unknown fuel", in: in(func(in *patio.VehicleInput) { in.Fuel = patio.Some("alcool") }), wantErr: "fuel must be one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := patio.NewVehicle(team, vehicleID, now, tt.in)
			if tt.want == nil {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewVehicle(%s) = %v; want KindInvalid containing %q", members(tt.in), err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewVehicle(%s) = %v; want no error", members(tt.in), err)
			}
			if d := diff(v, *tt.want); d != "" {
				t.Errorf("NewVehicle(%s) differs: %s", members(tt.in), d)
			}
		})
	}
}

// TestNewVehicleListsEveryProblem checks that one 400 names every missing member.
func TestNewVehicleListsEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   patio.VehicleInput
		want string
	}{
		{name: "sold", in: patio.VehicleInput{Status: status(patio.VehicleSold)}, want: "brand model price status"},
		// The rule between the years is listed with the others, not after they are fixed.
		{name: "years apart", in: patio.VehicleInput{ManufactureYear: patio.Some(2020), ModelYear: patio.Some(2024)},
			want: "brand model price model_year"},
		{name: "a year out of range", in: patio.VehicleInput{ManufactureYear: patio.Some(1800), ModelYear: patio.Some(2024)},
			want: "manufacture_year brand model price"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, err := range map[string]error{
				"NewVehicle":  func() error { _, err := patio.NewVehicle(team, vehicleID, now, tc.in); return err }(),
				"ValidateNew": tc.in.ValidateNew(now),
			} {
				e, ok := err.(*patio.Error)
				if !ok {
					t.Fatalf("%s(%+v) = %v; want a *patio.Error", name, tc.in, err)
				}
				var got []string
				for _, d := range e.Details {
					got = append(got, d.Field)
				}
				if strings.Join(got, " ") != tc.want {
					t.Errorf("%s(%+v) names %v; want %s", name, tc.in, got, tc.want)
				}
			}
		})
	}
}

// The vehicles of the update cases.
var (
	stock = with(stockVehicle(vehicleID, patio.VehicleActive, ""), func(v *patio.Vehicle) { v.Plate = ptr("ABC1234") })
	// soldOutside was sold by PUT, outside the pipeline: no sold_deal_id.
	soldOutside = with(stock, func(v *patio.Vehicle) { v.Status, v.SoldAt = patio.VehicleSold, ptr(earlier) })
	// soldByDeal was sold by the deal dealID winning it.
	soldByDeal = with(soldOutside, func(v *patio.Vehicle) { v.SoldDealID = ptr(dealID) })
)

func TestVehicleApply(t *testing.T) {
	reservedStock := with(stock, func(v *patio.Vehicle) { v.Status = patio.VehicleReserved })
	tests := []struct {
		name string
		cur  patio.Vehicle
		in   patio.VehicleInput
		// want is the vehicle after the input; nil when the case fails with an error of kind
		// wantErr whose message contains wantMsg.
		want    *patio.Vehicle
		wantErr patio.Kind
		wantMsg string
	}{
		{name: "nothing sent", cur: stock, want: &stock},
		{name: "the same values, the plate in the other spelling", cur: stock,
			in:   patio.VehicleInput{Brand: patio.Some("Fiat"), Plate: patio.Some("abc-1234"), Price: patio.Some(stock.Price)},
			want: &stock},
		{name: "new price", cur: stock, in: patio.VehicleInput{Price: patio.Some(money.Cents(7_500_000))},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Price = 7_500_000 }))},
		{name: "title is not derived again", cur: stock, in: patio.VehicleInput{Version: patio.Some("Trekking")},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Version = ptr("Trekking") }))},
		{name: "plate in the old spelling", cur: stock, in: patio.VehicleInput{Plate: patio.Some("xyz-9876")},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Plate = ptr("XYZ9876") }))},
		{name: "Mercosul plate", cur: stock, in: patio.VehicleInput{Plate: patio.Some("xyz9a76")},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Plate = ptr("XYZ9A76") }))},
		{name: "clear plate", cur: stock, in: patio.VehicleInput{Plate: patio.Null[string]()},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Plate = nil }))},
		{name: "bad plate", cur: stock, in: patio.VehicleInput{Plate: patio.Some("XYZ-98765")}, wantErr: patio.KindInvalid, wantMsg: "plate"},

		{name: "null title", cur: stock, in: patio.VehicleInput{Title: patio.Null[string]()}, wantErr: patio.KindInvalid, wantMsg: "title must not be null"},
		{name: "null brand", cur: stock, in: patio.VehicleInput{Brand: patio.Null[string]()}, wantErr: patio.KindInvalid, wantMsg: "brand must not be null"},
		{name: "null model", cur: stock, in: patio.VehicleInput{Model: patio.Null[string]()}, wantErr: patio.KindInvalid, wantMsg: "model must not be null"},
		{name: "null price", cur: stock, in: patio.VehicleInput{Price: patio.Null[money.Cents]()}, wantErr: patio.KindInvalid, wantMsg: "price must not be null"},
		{name: "null phase", cur: stock, in: patio.VehicleInput{Phase: patio.Null[string]()}, wantErr: patio.KindInvalid, wantMsg: "phase must not be null"},
		{name: "null status", cur: stock, in: patio.VehicleInput{Status: patio.Null[string]()}, wantErr: patio.KindInvalid, wantMsg: "status must not be null"},
		{name: "null description clears it", cur: with(stock, func(v *patio.Vehicle) { v.Description = ptr("único dono") }),
			in: patio.VehicleInput{Description: patio.Null[string]()}, want: &stock},

		{name: "model_year two after the stored manufacture_year", cur: stock, in: patio.VehicleInput{ModelYear: patio.Some(2026)},
			wantErr: patio.KindInvalid, wantMsg: "model_year must be manufacture_year or the year after it"},
		{name: "manufacture_year after the stored model_year", cur: stock, in: patio.VehicleInput{ManufactureYear: patio.Some(2026)},
			wantErr: patio.KindInvalid, wantMsg: "model_year must be manufacture_year or the year after it"},
		{name: "both years together", cur: stock, in: patio.VehicleInput{ManufactureYear: patio.Some(2025), ModelYear: patio.Some(2026)},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.ManufactureYear, v.ModelYear = ptr(2025), ptr(2026) }))},
		{name: "clear manufacture_year", cur: stock, in: patio.VehicleInput{ManufactureYear: patio.Null[int]()},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.ManufactureYear = nil }))},
		{name: "model_year out of range", cur: stock, in: patio.VehicleInput{ModelYear: patio.Some(2028)},
			wantErr: patio.KindInvalid, wantMsg: "model_year must be between 1900 and 2027"},

		{name: "ativo to reservado", cur: stock, in: patio.VehicleInput{Status: status(patio.VehicleReserved)}, want: &reservedStock},
		{name: "ativo to vendido sets sold_at", cur: stock, in: patio.VehicleInput{Status: status(patio.VehicleSold)},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Status, v.SoldAt = patio.VehicleSold, ptr(nowTS) }))},
		{name: "reservado to vendido sets sold_at", cur: reservedStock, in: patio.VehicleInput{Status: status(patio.VehicleSold)},
			want: ptr(with(stock, func(v *patio.Vehicle) { v.Status, v.SoldAt = patio.VehicleSold, ptr(nowTS) }))},
		{name: "ativo to arquivado", cur: stock, in: patio.VehicleInput{Status: status(patio.VehicleArchived)},
			want: ptr(stock.Archive())},
		{name: "arquivado to ativo", cur: stock.Archive(), in: patio.VehicleInput{Status: status(patio.VehicleActive)}, want: &stock},
		{name: "vendido to ativo clears sold_at", cur: soldOutside, in: patio.VehicleInput{Status: status(patio.VehicleActive)},
			want: &stock},
		{name: "vendido to reservado clears sold_at", cur: soldOutside, in: patio.VehicleInput{Status: status(patio.VehicleReserved)},
			want: &reservedStock},
		{name: "vendido to arquivado keeps sold_at", cur: soldOutside, in: patio.VehicleInput{Status: status(patio.VehicleArchived)},
			want: ptr(soldOutside.Archive())},
		{name: "arquivado after a sale to vendido keeps sold_at", cur: soldOutside.Archive(),
			in: patio.VehicleInput{Status: status(patio.VehicleSold)}, want: &soldOutside},
		{name: "arquivado after a sale to ativo clears sold_at", cur: soldOutside.Archive(),
			in: patio.VehicleInput{Status: status(patio.VehicleActive)}, want: &stock},

		{name: "sold by a deal, to ativo", cur: soldByDeal, in: patio.VehicleInput{Status: status(patio.VehicleActive)},
			wantErr: patio.KindConflict},
		{name: "sold by a deal, to reservado", cur: soldByDeal, in: patio.VehicleInput{Status: status(patio.VehicleReserved)},
			wantErr: patio.KindConflict},
		{name: "sold by a deal, to arquivado keeps the sale", cur: soldByDeal, in: patio.VehicleInput{Status: status(patio.VehicleArchived)},
			want: ptr(soldByDeal.Archive())},
		{name: "sold by a deal, archived, to vendido", cur: soldByDeal.Archive(), in: patio.VehicleInput{Status: status(patio.VehicleSold)},
			want: &soldByDeal},
		{name: "sold by a deal, archived, to ativo", cur: soldByDeal.Archive(), in: patio.VehicleInput{Status: status(patio.VehicleActive)},
			wantErr: patio.KindConflict},
		{name: "sold by a deal, archived, to reservado", cur: soldByDeal.Archive(), in: patio.VehicleInput{Status: status(patio.VehicleReserved)},
			wantErr: patio.KindConflict},
		{name: "sold by a deal, new phase", cur: soldByDeal, in: patio.VehicleInput{Phase: patio.Some("entregue")},
			want: ptr(with(soldByDeal, func(v *patio.Vehicle) { v.Phase = "entregue" }))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cur.Apply(tt.in, now)
			if tt.want == nil {
				if err == nil || patio.KindOf(err) != tt.wantErr || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Apply(%s) = %v; want an error of kind %d containing %q", members(tt.in), err, tt.wantErr, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s) = %v; want no error", members(tt.in), err)
			}
			if d := diff(got, *tt.want); d != "" {
				t.Errorf("Apply(%s) differs: %s", members(tt.in), d)
			}
		})
	}
}

func TestVehicleSellTo(t *testing.T) {
	tests := []struct {
		name string
		cur  patio.Vehicle
		ok   bool // false: KindConflict
	}{
		{name: "ativo", cur: stock, ok: true},
		{name: "reservado", cur: with(stock, func(v *patio.Vehicle) { v.Status = patio.VehicleReserved }), ok: true},
		{name: "sold outside the pipeline", cur: soldOutside},
		{name: "sold by another deal", cur: with(soldByDeal, func(v *patio.Vehicle) { v.SoldDealID = ptr(otherDealID) })},
		{name: "arquivado", cur: stock.Archive()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cur.SellTo(dealID, now)
			if !tt.ok {
				if !patio.IsKind(err, patio.KindConflict) {
					t.Fatalf("SellTo(%s) of a %s vehicle = %v; want KindConflict", dealID, tt.cur.Status, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SellTo(%s) = %v; want no error", dealID, err)
			}
			if d := diff(got, soldBy(tt.cur, dealID)); d != "" {
				t.Errorf("SellTo(%s) differs: %s", dealID, d)
			}
		})
	}
}

func TestVehicleArchive(t *testing.T) {
	tests := []struct {
		name string
		cur  patio.Vehicle
		want patio.Vehicle
	}{
		{name: "ativo", cur: stock, want: with(stock, func(v *patio.Vehicle) { v.Status = patio.VehicleArchived })},
		{name: "sold by a deal keeps sold_at and sold_deal_id", cur: soldByDeal,
			want: with(soldByDeal, func(v *patio.Vehicle) { v.Status = patio.VehicleArchived })},
		{name: "archived is unchanged", cur: with(stock, func(v *patio.Vehicle) { v.Status = patio.VehicleArchived }),
			want: with(stock, func(v *patio.Vehicle) { v.Status = patio.VehicleArchived })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := diff(tt.cur.Archive(), tt.want); d != "" {
				t.Errorf("Archive() differs: %s", d)
			}
		})
	}
}
