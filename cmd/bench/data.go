package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/dev/storeseed"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Plate indexes: each range gives distinct plates (and plate keys, since old-format plates map one
// to one onto Mercosul spellings), so no write in the bench ever collides on a plate.
const (
	plateIndexSeeded  = 0          // AAA0000…: the seeded vehicles
	plateIndexCreated = 10_000_000 // BMM0000…: the vehicles POSTed (and put by the raw side)
	plateIndexDeals   = 20_000_000 // CYY0000…: the vehicles the deals win
	plateIndexMax     = 26 * 26 * 26 * 10_000
)

// oldPlate returns the i-th old-format plate (LLLDDDD): "AAA0000", "AAA0001", … "ZZZ9999".
func oldPlate(i int) string {
	if i < 0 || i >= plateIndexMax {
		panic(fmt.Sprintf("bench: plate index %d out of range", i))
	}
	n := i / 10_000
	return fmt.Sprintf("%c%c%c%04d", 'A'+n/676, 'A'+n/26%26, 'A'+n%26, i%10_000)
}

// cpf returns the i-th CPF: i's 8 digits, one that differs from the first (never a repeated-digit
// CPF), and both check digits; distinct i < 10^8 give distinct CPFs.
func cpf(i int) string {
	base := []byte(fmt.Sprintf("%08d", i%100_000_000))
	base = append(base, '0'+(base[0]-'0'+1)%10)
	return checkDigits(base, func(n, j int) int { return n + 1 - j })
}

// cnpj returns the i-th numeric CNPJ: 8 digits of i, branch 0001, both check digits.
func cnpj(i int) string {
	return checkDigits([]byte(fmt.Sprintf("%08d0001", i%100_000_000)), func(n, j int) int { return 2 + (n-1-j)%8 })
}

// checkDigits appends the two mod-11 check digits to d, digit j of n weighing weight(n, j).
func checkDigits(d []byte, weight func(n, j int) int) string {
	for range 2 {
		sum := 0
		for j, c := range d {
			sum += int(c-'0') * weight(len(d), j)
		}
		c := byte('0')
		if r := sum % 11; r >= 2 {
			c = byte('0' + 11 - r)
		}
		d = append(d, c)
	}
	return string(d)
}

var (
	benchModels = []struct{ brand, model, version string }{
		{"Toyota", "Corolla", "XEi 2.0"}, {"Volkswagen", "Gol", "1.0 MPI"},
		{"Chevrolet", "Onix", "LT 1.0 Turbo"}, {"Fiat", "Strada", "Freedom 1.3"},
		{"Hyundai", "HB20", "Comfort 1.0"}, {"Honda", "Civic", "EXL 2.0"},
		{"Jeep", "Compass", "Longitude T270"}, {"Renault", "Kwid", "Zen 1.0"},
		{"Ford", "Ranger", "XLS 2.2 Diesel"}, {"Nissan", "Kicks", "SV 1.6"},
		{"Citroën", "C4 Cactus", "Feel 1.6"}, {"Peugeot", "208", "Allure 1.0"},
	}
	benchFuels         = []string{"flex", "gasolina", "etanol", "diesel", "hibrido", "eletrico"}
	benchTransmissions = []string{"manual", "automatico", "automatizado", "cvt"}
	benchColors        = []string{"Prata", "Branco", "Preto", "Cinza", "Vermelho", "Azul"}
)

// vehicleBody returns the POST body of benchVehicle(i, now).
func vehicleBody(i int, now time.Time) []byte {
	v := benchVehicle(i, now)
	return fmt.Appendf(nil, `{"brand":%q,"model":%q,"version":%q,"plate":%q,"manufacture_year":%d,`+
		`"model_year":%d,"mileage_km":%d,"color":%q,"fuel":%q,"transmission":%q,"price":%s,`+
		`"purchase_price":%s,"phase":%q,"description":%q}`,
		v.Brand.Value, v.Model.Value, v.Version.Value, v.Plate.Value, v.ManufactureYear.Value, v.ModelYear.Value,
		v.MileageKm.Value, v.Color.Value, v.Fuel.Value, v.Transmission.Value, v.Price.Value, v.PurchasePrice.Value,
		v.Phase.Value, v.Description.Value)
}

// benchPrice is the i-th record's price: 15,000.00 to 414,999.99, spread evenly.
func benchPrice(i int) money.Cents { return money.Cents(1_500_000 + (i*7_919_993)%40_000_000) }

// benchVehicle returns the vehicle of plate index i: a realistic used car whose price, model year,
// mileage and options vary with i.
func benchVehicle(i int, now time.Time) patio.VehicleInput {
	m := benchModels[i%len(benchModels)]
	modelYear, price := now.Year()-17+i%18, benchPrice(i)
	return patio.VehicleInput{
		Brand: patio.Some(m.brand), Model: patio.Some(m.model), Version: patio.Some(m.version),
		Plate: patio.Some(oldPlate(i)), ManufactureYear: patio.Some(modelYear - i%2), ModelYear: patio.Some(modelYear),
		MileageKm: patio.Some((i * 1_237) % 250_000), Color: patio.Some(benchColors[i%len(benchColors)]),
		Fuel: patio.Some(benchFuels[i%len(benchFuels)]), Transmission: patio.Some(benchTransmissions[i%len(benchTransmissions)]),
		Price: patio.Some(price), PurchasePrice: patio.Some(price * 85 / 100), Phase: patio.Some("disponivel"),
		Description: patio.Some("Único dono, revisões em dia."),
	}
}

// benchClient returns the i-th client: one in five a company (a CNPJ), the others individuals (a
// CPF); every other one has an email.
func benchClient(i int) patio.ClientInput {
	in := patio.ClientInput{Type: patio.Some(patio.ClientIndividual), Name: patio.Some(fmt.Sprintf("Cliente Bench %05d", i)), CPF: patio.Some(cpf(i))}
	if i%5 == 0 {
		in = patio.ClientInput{Type: patio.Some(patio.ClientCompany), Name: patio.Some(fmt.Sprintf("Revenda Bench %05d Ltda", i)), CNPJ: patio.Some(cnpj(i))}
	}
	if i%2 == 0 {
		in.Email = patio.Some(fmt.Sprintf("cliente%d@example.com", i))
	}
	return in
}

// historySpan is how far back a seeded history goes: its records were created evenly over it.
const historySpan = 5 * 365 * 24 * time.Hour

// historyStatus returns a vehicle's status as a dealership's history has them: 45 % vendido, 45 %
// arquivado, 5 % ativo and 5 % reservado.
func historyStatus(rng *rand.Rand) func() string {
	return func() string {
		switch n := rng.IntN(20); {
		case n < 9:
			return string(patio.VehicleSold)
		case n < 18:
			return string(patio.VehicleArchived)
		case n == 18:
			return string(patio.VehicleActive)
		}
		return string(patio.VehicleReserved)
	}
}

// always returns a status function that always says status.
func always(status string) func() string { return func() string { return status } }

// history builds n records of a history ending at end, the i-th created at its share of span
// (step i+1 of n, oldest first) with a UUIDv7 of that instant as its id (span 0: all at end).
func history[T any](n int, end time.Time, span time.Duration, build func(i int, id string, at time.Time) (T, error)) []T {
	out := make([]T, n)
	for i := range out {
		at := end
		if span > 0 {
			at = end.Add(-span / time.Duration(n) * time.Duration(n-i))
		}
		u := uuid.Must(uuid.NewV7())
		var ms [8]byte
		binary.BigEndian.PutUint64(ms[:], uint64(at.UnixMilli()))
		copy(u[:6], ms[2:])
		var err error
		if out[i], err = build(i, u.String(), at); err != nil {
			check(fmt.Errorf("bench: record %d of %d: %w", i, n, err))
		}
	}
	return out
}

// historyVehicles returns n vehicles of a team (plate indexes from plate) created over historySpan
// up to end, with the status status returns: sold ones sold (phase entregue) and archived ones
// archived up to 90 days after their creation.
func historyVehicles(teamID string, n, plate int, end time.Time, status func() string) []patio.Vehicle {
	rng := rand.New(rand.NewPCG(uint64(n), 10))
	return history(n, end, historySpan, func(i int, id string, at time.Time) (patio.Vehicle, error) {
		v, err := patio.NewVehicle(teamID, id, at, benchVehicle(plate+i, at))
		v.Status = patio.VehicleStatus(status())
		later := patio.NewTimestamp(at.Add(time.Duration(1+rng.IntN(90)) * 24 * time.Hour))
		if later.Time().After(end) {
			later = patio.NewTimestamp(end)
		}
		switch v.Status {
		case patio.VehicleSold:
			v.SoldAt, v.Phase, v.UpdatedAt = &later, "entregue", later
		case patio.VehicleArchived:
			v.UpdatedAt = later
		}
		return v, err
	})
}

// historyClients returns n clients of a team (benchClient from first) created over historySpan up
// to end, with the status status returns.
func historyClients(teamID string, n, first int, end time.Time, status func() string) []patio.Client {
	return history(n, end, historySpan, func(i int, id string, at time.Time) (patio.Client, error) {
		c, err := patio.NewClient(teamID, id, at, benchClient(first+i))
		c.Status = patio.ClientStatus(status())
		return c, err
	})
}

// historyDeals returns n deals of a team spread over clientIDs, created over historySpan up to
// end, as a dealership's pipeline leaves them: 20 % open, 40 % won, 30 % lost, 10 % archived.
func historyDeals(teamID string, n int, end time.Time, clientIDs []string) []patio.Deal {
	statuses := []patio.DealStatus{patio.DealOpen, patio.DealOpen, patio.DealWon, patio.DealWon, patio.DealWon, patio.DealWon,
		patio.DealLost, patio.DealLost, patio.DealLost, patio.DealArchived}
	return history(n, end, historySpan, func(i int, id string, at time.Time) (patio.Deal, error) {
		m := benchModels[i%len(benchModels)]
		w, err := patio.NewDeal(context.Background(), teamID, id, at, patio.DealInput{
			Title: patio.Some(fmt.Sprintf("Venda %s %s", m.brand, m.model)), ClientID: patio.Some(clientIDs[i%len(clientIDs)]),
			Value: patio.Some(benchPrice(i)), Phase: patio.Some(patio.DealPhases[i%len(patio.DealPhases)])}, nil)
		d := w.Record
		d.Status = statuses[i%len(statuses)]
		if d.Status == patio.DealWon || d.Status == patio.DealLost {
			ts := patio.NewTimestamp(at.Add(30 * 24 * time.Hour))
			d.ClosedAt, d.UpdatedAt = &ts, ts
		}
		if d.Status == patio.DealLost {
			reason := "preco"
			d.LostReason = &reason
		}
		return d, err
	})
}

// seedAll writes records with storeseed.Seed.
func seedAll[T any](ctx context.Context, store *dynamostore.Store, recs []T) {
	start := time.Now()
	check(storeseed.Seed(ctx, store.DB(), recs))
	took := time.Since(start)
	progress("seeded %d %T in %s (%.0f/s)", len(recs), recs, took.Round(time.Millisecond), float64(len(recs))/took.Seconds())
}

// ids returns the ids of records.
func ids[T any](recs []T, id func(T) string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = id(r)
	}
	return out
}

// counter hands out consecutive indexes to concurrent workers.
type counter struct{ next atomic.Int64 }

// newCounter returns a counter whose first index is start.
func newCounter(start int) *counter {
	c := &counter{}
	c.next.Store(int64(start))
	return c
}

// take returns the next index.
func (c *counter) take() int { return int(c.next.Add(1) - 1) }

// errPoolEmpty ends a run early: every prepared item was used.
var errPoolEmpty = errors.New("pool exhausted")

// pool hands out prepared items, each once, to concurrent workers.
type pool[T any] struct {
	items []T
	next  atomic.Int64
}

// take returns the next unused item, or errPoolEmpty.
func (p *pool[T]) take() (T, error) {
	if i := p.next.Add(1) - 1; i < int64(len(p.items)) {
		return p.items[i], nil
	}
	var zero T
	return zero, errPoolEmpty
}

// parallel runs f(0) … f(n-1) on at most workers goroutines and returns the first error.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error { return f(gctx, i) })
	}
	return g.Wait()
}
