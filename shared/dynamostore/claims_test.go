package dynamostore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// A claim is written with the record it claims for, refused while live, and free again once
// expired, whether or not DynamoDB's TTL has removed it yet.
func TestIdempotencyClaims(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	claim := func(key string, expires time.Time) *patio.Claim {
		return &patio.Claim{TeamID: team, Key: key, Fingerprint: "fp", Expires: expires}
	}
	create := func(c *patio.Claim) (patio.Vehicle, error) {
		v := newVehicle(t, team, patio.VehicleInput{})
		return s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: v, Changed: true, Claim: c})
	}

	v, err := create(claim("live", time.Now().Add(time.Hour)))
	if err != nil {
		t.Fatalf("Create with a new claim = %v; want nil", err)
	}
	got, err := s.Claimed(ctx, team, "live")
	if err != nil || got.Fingerprint != "fp" || !got.Expires.After(time.Now()) {
		t.Fatalf("Claimed(live) = %+v, %v; want the claim", got, err)
	}
	var rec patio.Vehicle
	if err := json.Unmarshal(got.Record, &rec); err != nil || rec.ID != v.ID || rec.Revision != 1 {
		t.Errorf("claimed record = %s (%v); want vehicle %s at revision 1", got.Record, err, v.ID)
	}

	second, err := create(claim("live", time.Now().Add(time.Hour)))
	if !errors.Is(err, patio.ErrClaimTaken) {
		t.Errorf("Create claiming a live key = %v; want ErrClaimTaken", err)
	}
	wantMissing(t, s.Vehicles(), team, second.ID)

	if _, err := create(claim("old", time.Now().Add(-time.Second))); err != nil {
		t.Fatalf("Create with an expired claim = %v; want nil", err)
	}
	if _, err := create(claim("old", time.Now().Add(time.Hour))); err != nil {
		t.Errorf("Create claiming an expired key = %v; want nil (the key is free again)", err)
	}
	if _, err := s.Claimed(ctx, team, "never"); !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("Claimed(never) = %v; want KindNotFound", err)
	}
}
