package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

func TestOldPlate(t *testing.T) {
	for i, want := range map[int]string{0: "AAA0000", 9_999: "AAA9999", 10_000: "AAB0000", plateIndexCreated: "BMM0000",
		plateIndexDeals: "CYY0000", plateIndexMax - 1: "ZZZ9999"} {
		if got := oldPlate(i); got != want {
			t.Errorf("oldPlate(%d) = %q; want %q", i, got, want)
		}
		if n, err := br.NormalizePlate(want); err != nil || n != want {
			t.Errorf("NormalizePlate(%q) = %q, %v; want it unchanged", want, n, err)
		}
	}
}

// Distinct indexes must give distinct plate keys, or seeded and created vehicles would collide on
// the plate guard (ABC1234 and ABC1C34 are one plate).
func TestOldPlateKeysDistinct(t *testing.T) {
	seen := map[string]int{}
	for _, start := range []int{plateIndexSeeded, plateIndexCreated, plateIndexDeals} {
		for i := start; i < start+30_000; i++ {
			key := br.PlateKey(oldPlate(i))
			if j, dup := seen[key]; dup {
				t.Fatalf("PlateKey(oldPlate(%d)) = PlateKey(oldPlate(%d)) = %q", i, j, key)
			}
			seen[key] = i
		}
	}
}

// seq returns from, from+1, … to-1, and extra.
func seq(from, to int, extra ...int) []int {
	for i := from; i < to; i++ {
		extra = append(extra, i)
	}
	return extra
}

func TestCPFAndCNPJValid(t *testing.T) {
	seen := map[string]int{}
	for _, i := range seq(0, 5_000, 1, 11_111_111, 22_222_222, 99_999_999) {
		c := cpf(i)
		if got, err := br.NormalizeCPF(c); err != nil || got != c {
			t.Fatalf("NormalizeCPF(cpf(%d) = %q) = %q, %v; want it valid and unchanged", i, c, got, err)
		}
		if j, dup := seen[c]; dup && j != i {
			t.Fatalf("cpf(%d) = cpf(%d) = %q", i, j, c)
		}
		seen[c] = i
	}
	for _, i := range seq(0, 2_000, 5, 99_999_995) {
		c := cnpj(i)
		if got, err := br.NormalizeCNPJ(c); err != nil || got != c {
			t.Fatalf("NormalizeCNPJ(cnpj(%d) = %q) = %q, %v; want it valid and unchanged", i, c, got, err)
		}
	}
}

// Every generated body must be one the API accepts, and say what the typed input the store seeding
// uses says, or seeding fails half-way through a run.
func TestVehicleBodyValid(t *testing.T) {
	now := time.Now()
	for _, i := range seq(0, 200, plateIndexCreated, plateIndexDeals+17) {
		in, err := httpapi.DecodeVehicle(vehicleBody(i, now))
		if err != nil {
			t.Fatalf("DecodeVehicle(vehicleBody(%d)) = %v", i, err)
		}
		if want := benchVehicle(i, now); !reflect.DeepEqual(in, want) {
			t.Fatalf("DecodeVehicle(vehicleBody(%d)) = %+v; want benchVehicle(%d) = %+v", i, in, i, want)
		}
		if _, err := patio.NewVehicle("t", "01a200a8-99fa-7ee8-a906-40df5739cb0d", now, in); err != nil {
			t.Fatalf("NewVehicle(vehicleBody(%d)) = %v", i, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := ms(seq(1, 101)...)
	for _, tt := range []struct {
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{nil, 50, 0},                               // empty
		{ms(7), 99, 7 * time.Millisecond},          // one
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond}, // the median of four is the second
		{ms(1, 2, 3, 4), 99, 4 * time.Millisecond}, // p99 of four is the last
		{hundred, 50, 50 * time.Millisecond},
		{hundred, 99, 99 * time.Millisecond},
	} {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %d) = %v; want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
}

func TestPoolHandsEachItemOnce(t *testing.T) {
	p := &pool[int]{items: []int{1, 2}}
	for _, want := range []int{1, 2} {
		if got, err := p.take(); err != nil || got != want {
			t.Fatalf("take() = %d, %v; want %d, nil", got, err, want)
		}
	}
	if _, err := p.take(); err != errPoolEmpty {
		t.Errorf("take() on an empty pool = %v; want errPoolEmpty", err)
	}
}
