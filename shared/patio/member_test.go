package patio_test

import (
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// TestRolePermissions is the console's table of who may do what.
func TestRolePermissions(t *testing.T) {
	tests := []struct {
		perm                         patio.Permission
		owner, admin, member, viewer bool
	}{
		{patio.PermMembers, true, false, false, false},
		{patio.PermTeamSettings, true, false, false, false},
		{patio.PermDeleteWebhooks, true, false, false, false},
		{patio.PermWebhooks, true, true, false, false},
		{patio.PermKeys, true, true, false, false},
		{patio.PermReadKeys, true, true, false, true},
		{patio.PermInvite, true, true, false, false},
		{patio.PermModules, true, true, true, false},
	}
	for _, tt := range tests {
		for role, want := range map[patio.Role]bool{patio.RoleOwner: tt.owner, patio.RoleAdmin: tt.admin,
			patio.RoleMember: tt.member, patio.RoleViewer: tt.viewer} {
			if got := role.May(tt.perm); got != want {
				t.Errorf("%s.May(%s) = %v; want %v", role, tt.perm, got, want)
			}
		}
	}
	invites := map[patio.Role][]patio.Role{
		patio.RoleOwner: patio.Roles, patio.RoleAdmin: {patio.RoleMember, patio.RoleViewer},
	}
	for _, by := range patio.Roles {
		for _, r := range patio.Roles {
			want := false
			for _, ok := range invites[by] {
				want = want || ok == r
			}
			if got := by.MayInvite(r); got != want {
				t.Errorf("%s.MayInvite(%s) = %v; want %v", by, r, got, want)
			}
		}
	}
}

func TestSessionExpiry(t *testing.T) {
	start := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		seen, now time.Time
		live      bool
	}{
		{"just signed in", start, start.Add(time.Minute), true},
		{"idle under 2 h", start, start.Add(119 * time.Minute), true},
		{"idle 2 h", start, start.Add(2 * time.Hour), false},
		{"busy, 11 h 59 in", start.Add(11*time.Hour + 50*time.Minute), start.Add(11*time.Hour + 59*time.Minute), true},
		{"busy, 12 h in", start.Add(11*time.Hour + 59*time.Minute), start.Add(12 * time.Hour), false},
	}
	for _, tt := range tests {
		s := patio.Session{CreatedAt: start, SeenAt: tt.seen}
		if got := s.Live(tt.now); got != tt.live {
			t.Errorf("%s: Live = %v; want %v", tt.name, got, tt.live)
		}
	}
}

func TestPasswords(t *testing.T) {
	for range 50 {
		pw, err := patio.NewTemporaryPassword()
		if err != nil {
			t.Fatal(err)
		}
		if err := patio.CheckPassword("password", pw); err != nil {
			t.Errorf("NewTemporaryPassword() = %q, which the policy refuses: %v", pw, err)
		}
	}
	for _, pw := range []string{"", "Short-1!", "alllowercase-123!", "ALLUPPERCASE-123!", "NoDigitsHere-!!!", "NoSymbols12345ab"} {
		if err := patio.CheckPassword("password", pw); err == nil || !strings.Contains(err.Error(), "12 characters") {
			t.Errorf("CheckPassword(%q) = %v; want the policy's refusal", pw, err)
		}
	}
}
