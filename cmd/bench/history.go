package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/patio"
)

// historySpan is how far back a seeded team's history goes: its vehicles were created evenly over
// it, oldest first.
const historySpan = 5 * 365 * 24 * time.Hour

// historyStatus returns the status of a seeded vehicle as a dealership's history has them: 45 %
// vendido, 45 % arquivado, 5 % ativo and 5 % reservado, drawn from rng.
func historyStatus(rng *rand.Rand) string {
	switch n := rng.IntN(20); {
	case n < 9:
		return patio.VehicleSold
	case n < 18:
		return patio.VehicleArchived
	case n == 18:
		return patio.VehicleActive
	default:
		return patio.VehicleReserved
	}
}

// historyVehicles returns n valid vehicles of a team (patio.NewVehicle, plates of plate indexes
// 0 to n-1), created evenly over historySpan up to end, each with a UUIDv7 of its creation
// instant as the API would have given it, and the status status returns for it: sold ones were
// sold (sold_at, phase entregue) and archived ones archived up to 90 days after their creation.
func historyVehicles(teamID string, n int, end time.Time, status func() string) ([]patio.Vehicle, error) {
	step := historySpan / time.Duration(n)
	rng := rand.New(rand.NewPCG(uint64(n), 10))
	out := make([]patio.Vehicle, n)
	for i := range out {
		created := end.Add(-step * time.Duration(n-i))
		v, err := patio.NewVehicle(teamID, uuidAt(created), created, benchVehicle(i, created))
		if err != nil {
			return nil, fmt.Errorf("history vehicle %d: %w", i, err)
		}
		v.Status = status()
		later := created.Add(time.Duration(1+rng.IntN(90)) * 24 * time.Hour)
		if later.After(end) {
			later = end
		}
		switch v.Status {
		case patio.VehicleSold:
			ts := patio.NewTimestamp(later)
			v.SoldAt, v.Phase, v.UpdatedAt = &ts, "entregue", ts
		case patio.VehicleArchived:
			v.UpdatedAt = patio.NewTimestamp(later)
		}
		out[i] = v
	}
	return out, nil
}

// uuidAt returns a UUIDv7 whose timestamp is t (millisecond precision), as patio.NewID gives at t.
func uuidAt(t time.Time) string {
	u := uuid.Must(uuid.NewV7())
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(u[:6], ms[2:])
	return u.String()
}

// importWorkers and importChunk shape seeding by dynamostore.ImportVehicles: chunks of vehicles
// imported side by side.
const (
	importWorkers = 4
	importChunk   = 500
)

// importVehicles bulk-loads vs into the team in the store's own item format.
func (env *benchEnv) importVehicles(ctx context.Context, teamID string, vs []patio.Vehicle) error {
	chunks := (len(vs) + importChunk - 1) / importChunk
	return parallel(ctx, chunks, importWorkers, func(ctx context.Context, i int) error {
		return env.store.ImportVehicles(ctx, teamID, vs[i*importChunk:min((i+1)*importChunk, len(vs))])
	})
}
