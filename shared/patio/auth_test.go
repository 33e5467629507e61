package patio_test

import (
	"context"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// keyStore holds keys and teams in maps and counts its round trips.
type keyStore struct {
	keys  map[string]patio.APIKey // by hash
	teams map[string]patio.Team
	trips []string
}

func (s *keyStore) KeyByHash(_ context.Context, hash string) (patio.APIKey, error) {
	s.trips = append(s.trips, "key")
	k, ok := s.keys[hash]
	if !ok {
		return patio.APIKey{}, patio.NotFoundf("key not found")
	}
	return k, nil
}

func (s *keyStore) Team(_ context.Context, id string) (patio.Team, error) {
	s.trips = append(s.trips, "team")
	t, ok := s.teams[id]
	if !ok {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	return t, nil
}

// bothStore is a keyStore that also reads a key and a team together.
type bothStore struct{ *keyStore }

func (s bothStore) KeyAndTeam(_ context.Context, hash, teamID string) (patio.APIKey, patio.Team, error) {
	s.trips = append(s.trips, "key+team")
	k, ok := s.keys[hash]
	if !ok {
		return patio.APIKey{}, patio.Team{}, patio.NotFoundf("key not found")
	}
	return k, s.teams[teamID], nil
}

// The edge's team hint saves the team's read only when it names the key's own team; the key is
// always read and decides.
func TestAuthenticateHinted(t *testing.T) {
	const secret = "dk_test_0123456789abcdefghijklmnopqrstuv"
	const revoked = "dk_test_revokedrevokedrevokedrevokedrevo"
	mine := patio.Team{ID: "team-mine", Plan: patio.PlanStarter}
	other := patio.Team{ID: "team-other", Plan: patio.PlanAutoshopping}
	fresh := func() *keyStore {
		return &keyStore{
			keys: map[string]patio.APIKey{
				patio.HashKey(secret):  {ID: "k1", TeamID: mine.ID, Status: patio.KeyActive},
				patio.HashKey(revoked): {ID: "k2", TeamID: mine.ID, Status: patio.KeyRevoked},
			},
			teams: map[string]patio.Team{mine.ID: mine, other.ID: other},
		}
	}
	tests := []struct {
		name      string
		both      bool
		secret    string
		hint      string
		deleted   bool // the key's team is gone
		wantTeam  string
		wantTrips []string
	}{
		{name: "no hint", both: true, secret: secret, wantTeam: mine.ID, wantTrips: []string{"key", "team"}},
		{name: "hint of the key's team", both: true, secret: secret, hint: mine.ID, wantTeam: mine.ID, wantTrips: []string{"key+team"}},
		{name: "hint of another team", both: true, secret: secret, hint: other.ID, wantTeam: mine.ID, wantTrips: []string{"key+team", "team"}},
		{name: "hint of an unknown team", both: true, secret: secret, hint: "team-gone", wantTeam: mine.ID, wantTrips: []string{"key+team", "team"}},
		{name: "hint, store reads one at a time", secret: secret, hint: mine.ID, wantTeam: mine.ID, wantTrips: []string{"key", "team"}},
		{name: "revoked key, hint of its team", both: true, secret: revoked, hint: mine.ID, wantTrips: []string{"key+team"}},
		{name: "unknown key, hint", both: true, secret: "dk_test_unknownunknownunknownunknownunkn", hint: mine.ID, wantTrips: []string{"key+team"}},
		{name: "key's team deleted, hint of it", both: true, secret: secret, hint: mine.ID, deleted: true, wantTrips: []string{"key+team", "team"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks := fresh()
			if tt.deleted {
				delete(ks.teams, mine.ID)
			}
			var store patio.KeyStore = ks
			if tt.both {
				store = bothStore{ks}
			}
			p, err := patio.AuthenticateHinted(context.Background(), store, "Bearer "+tt.secret, tt.hint)
			switch {
			case tt.wantTeam == "" && !patio.IsKind(err, patio.KindUnauthenticated):
				t.Errorf("= %+v, %v; want KindUnauthenticated", p, err)
			case tt.wantTeam != "" && (err != nil || p.Team.ID != tt.wantTeam || p.Key.TeamID != tt.wantTeam):
				t.Errorf("= team %q (key of %q), %v; want team %q", p.Team.ID, p.Key.TeamID, err, tt.wantTeam)
			}
			if len(ks.trips) != len(tt.wantTrips) {
				t.Fatalf("round trips %v; want %v", ks.trips, tt.wantTrips)
			}
			for i := range ks.trips {
				if ks.trips[i] != tt.wantTrips[i] {
					t.Fatalf("round trips %v; want %v", ks.trips, tt.wantTrips)
				}
			}
		})
	}
}
