package main

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Plate indexes: each range gives distinct plates (and distinct plate keys, since old-format plates
// map one to one onto Mercosul spellings), so no write in the bench ever collides on a plate.
const (
	plateIndexSeeded    = 0          // AAA0000…: the seeded vehicles
	plateIndexCreated   = 10_000_000 // BMM0000…: the vehicles POSTed (and put by the raw side)
	plateIndexDeals     = 20_000_000 // CYY0000…: the vehicles the deals win
	plateIndexWriteCost = 40_000_000 // the vehicle whose write cost is measured
	plateIndexMax       = 26 * 26 * 26 * 10_000
)

// oldPlate returns the i-th old-format plate (LLLDDDD): "AAA0000", "AAA0001", … "ZZZ9999".
func oldPlate(i int) string {
	if i < 0 || i >= plateIndexMax {
		panic(fmt.Sprintf("bench: plate index %d out of range", i))
	}
	n := i / 10_000
	return fmt.Sprintf("%c%c%c%04d", 'A'+n/676, 'A'+n/26%26, 'A'+n%26, i%10_000)
}

// cpf returns the i-th CPF (11 digits with both check digits). The 9-digit base is i's 8 digits
// and one that differs from the first, so that distinct i < 10^8 give distinct CPFs, never one of
// the repeated-digit ones.
func cpf(i int) string {
	base := []byte(fmt.Sprintf("%08d", i%100_000_000))
	base = append(base, '0'+(base[0]-'0'+1)%10)
	d1 := cpfDigit(base)
	d2 := cpfDigit(append(base, d1))
	return string(append(base, d1, d2))
}

// cpfDigit is the mod-11 check digit of the CPF digits in d (weights len(d)+1 down to 2).
func cpfDigit(d []byte) byte {
	sum := 0
	for i, c := range d {
		sum += int(c-'0') * (len(d) + 1 - i)
	}
	r := sum % 11
	if r < 2 {
		return '0'
	}
	return byte('0' + 11 - r)
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

// vehicleBody returns the POST body of the vehicle with plate index i: a realistic used car whose
// price, model year, mileage and options vary with i (prices spread over 15,000.00 to 414,999.99).
func vehicleBody(i int, now time.Time) []byte {
	v := benchVehicle(i, now)
	return fmt.Appendf(nil, `{"brand":%q,"model":%q,"version":%q,"plate":%q,"manufacture_year":%d,`+
		`"model_year":%d,"mileage_km":%d,"color":%q,"fuel":%q,"transmission":%q,"price":%s,`+
		`"purchase_price":%s,"phase":%q,"description":%q}`,
		v.Brand.Value, v.Model.Value, v.Version.Value, v.Plate.Value, v.ManufactureYear.Value, v.ModelYear.Value,
		v.MileageKm.Value, v.Color.Value, v.Fuel.Value, v.Transmission.Value, v.Price.Value, v.PurchasePrice.Value,
		v.Phase.Value, v.Description.Value)
}

// benchVehicle returns the i-th vehicle as the domain's typed input: what vehicleBody sends, for
// seeding through the use cases.
func benchVehicle(i int, now time.Time) patio.VehicleInput {
	m := benchModels[i%len(benchModels)]
	modelYear := now.Year() - 17 + i%18
	price := money.Cents(1_500_000 + (i*7_919_993)%40_000_000)
	return patio.VehicleInput{
		Brand: patio.Some(m.brand), Model: patio.Some(m.model), Version: patio.Some(m.version),
		Plate: patio.Some(oldPlate(i)), ManufactureYear: patio.Some(modelYear - i%2), ModelYear: patio.Some(modelYear),
		MileageKm: patio.Some((i * 1_237) % 250_000), Color: patio.Some(benchColors[i%len(benchColors)]),
		Fuel: patio.Some(benchFuels[i%len(benchFuels)]), Transmission: patio.Some(benchTransmissions[i%len(benchTransmissions)]),
		Price: patio.Some(price), PurchasePrice: patio.Some(price * 85 / 100), Phase: patio.Some("disponivel"),
		Description: patio.Some("Único dono, revisões em dia."),
	}
}

// clientBody returns the POST body of the i-th individual client.
func clientBody(i int) []byte {
	c := benchClient(i)
	return fmt.Appendf(nil, `{"type":%q,"name":%q,"cpf":%q,"email":%q}`, c.Type.Value, c.Name.Value, c.CPF.Value, c.Email.Value)
}

// benchClient returns the i-th individual client as the domain's typed input.
func benchClient(i int) patio.ClientInput {
	return patio.ClientInput{Type: patio.Some(patio.ClientIndividual), Name: patio.Some(fmt.Sprintf("Cliente Bench %05d", i)),
		CPF: patio.Some(cpf(i)), Email: patio.Some(fmt.Sprintf("cliente%d@example.com", i))}
}

// counter hands out consecutive indexes to concurrent workers.
type counter struct{ next atomic.Int64 }

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
	i := p.next.Add(1) - 1
	if i >= int64(len(p.items)) {
		var zero T
		return zero, errPoolEmpty
	}
	return p.items[i], nil
}

// cnpj returns the i-th numeric CNPJ (14 digits with both check digits): 8 digits of i, branch
// 0001.
func cnpj(i int) string {
	base := []byte(fmt.Sprintf("%08d0001", i%100_000_000))
	base = append(base, cnpjDigit(base))
	return string(append(base, cnpjDigit(base)))
}

// cnpjDigit is the mod-11 check digit of the CNPJ digits in d (weights 2 to 9 from the right).
func cnpjDigit(d []byte) byte {
	sum := 0
	for i := range d {
		sum += int(d[len(d)-1-i]-'0') * (2 + i%8)
	}
	if r := sum % 11; r >= 2 {
		return byte('0' + 11 - r)
	}
	return '0'
}
