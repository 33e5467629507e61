package patio

import (
	"crypto/rand"
	"math/big"
	"slices"
	"strings"
)

// Role is what a member may do in a team's console.
type Role string

// The roles, from the most to the least powerful.
const (
	// RoleOwner may do everything: members and roles, team settings, deleting webhooks, and all an
	// admin may.
	RoleOwner Role = "owner"
	// RoleAdmin manages webhooks, API keys, activities and financial records, and invites members
	// and viewers.
	RoleAdmin Role = "admin"
	// RoleMember manages activities and financial records and reads webhooks and deliveries.
	RoleMember Role = "member"
	// RoleViewer reads every screen and changes nothing.
	RoleViewer Role = "viewer"
)

// Roles lists every role, the most powerful first.
var Roles = []Role{RoleOwner, RoleAdmin, RoleMember, RoleViewer}

// ParseRole returns the role named s, or KindInvalid.
func ParseRole(s string) (Role, error) {
	if r := Role(strings.TrimSpace(s)); slices.Contains(Roles, r) {
		return r, nil
	}
	return "", invalid("role", "role must be one of owner, admin, member, viewer")
}

// Permission is one thing a role may do in the console.
type Permission string

// The permissions. Reading is open to every role except where a permission says otherwise.
const (
	// PermMembers: change roles, remove members, invite owners and admins.
	PermMembers Permission = "members"
	// PermTeamSettings: the team's name, contact email and time zone.
	PermTeamSettings Permission = "team_settings"
	// PermDeleteWebhooks: delete a webhook, for good.
	PermDeleteWebhooks Permission = "delete_webhooks"
	// PermWebhooks: create, edit, enable, disable, rotate, test and replay webhooks.
	PermWebhooks Permission = "webhooks"
	// PermKeys: create and revoke API keys.
	PermKeys Permission = "keys"
	// PermReadKeys: see the list of API keys (never a key itself).
	PermReadKeys Permission = "read_keys"
	// PermInvite: invite members and viewers, and invite them again.
	PermInvite Permission = "invite"
	// PermModules: create, edit and move activities and financial records.
	PermModules Permission = "modules"
	// PermPersonalData: see clients' personal data whole (CPF or CNPJ, birth date, phone, email,
	// address). Without it a document shows masked but for its last four characters, and the
	// rest not at all (LGPD: least exposure).
	PermPersonalData Permission = "personal_data"
)

// permissions says which roles hold each permission: the one table of who may do what.
var permissions = map[Permission][]Role{
	PermMembers:        {RoleOwner},
	PermTeamSettings:   {RoleOwner},
	PermDeleteWebhooks: {RoleOwner},
	PermWebhooks:       {RoleOwner, RoleAdmin},
	PermKeys:           {RoleOwner, RoleAdmin},
	PermReadKeys:       {RoleOwner, RoleAdmin, RoleViewer},
	PermInvite:         {RoleOwner, RoleAdmin},
	PermModules:        {RoleOwner, RoleAdmin, RoleMember},
	PermPersonalData:   {RoleOwner, RoleAdmin, RoleMember},
}

// May reports whether the role holds the permission.
func (r Role) May(p Permission) bool { return slices.Contains(permissions[p], r) }

// MayInvite reports whether the role may invite someone with role invited (or invite them again):
// owners anyone, admins members and viewers, the others no one.
func (r Role) MayInvite(invited Role) bool {
	switch {
	case r.May(PermMembers):
		return true
	case r.May(PermInvite):
		return invited == RoleMember || invited == RoleViewer
	}
	return false
}

// Member statuses: invited until the first sign-in, then active.
const (
	MemberInvited = "invited"
	MemberActive  = "active"
)

// InvitedByLocalStack is the InvitedBy of an owner the local stack made (no person invited them):
// the console names it in the reader's language.
const InvitedByLocalStack = "local stack"

// Member is a person's membership of a team: keyed by the team and the person's email (never by
// the identity provider's own user id, which a local stack forgets at each restart).
type Member struct {
	TeamID    string    `json:"team_id"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	Status    string    `json:"status"`
	InvitedBy string    `json:"invited_by"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// TeamName is the team's name, filled in a person's list of memberships (the team switcher).
	TeamName string `json:"team_name,omitempty"`
}

// ErrLastOwner refuses a change that would leave a team without an owner (KindConflict).
var ErrLastOwner = Conflictf("a team must keep at least one owner")

// NormalizeEmail validates a person's email address and returns it in the form memberships are
// keyed by: trimmed and lower-cased (KindInvalid naming field "email" otherwise).
func NormalizeEmail(s string) (string, error) {
	e, err := normalizeEmail(s)
	if err != nil {
		return "", invalid("email", "email must be a valid address")
	}
	return strings.ToLower(e), nil
}

// TemporaryPasswordLength is the length of an invitation's temporary password.
const TemporaryPasswordLength = 16

// NewTemporaryPassword returns a random password that meets the console's password policy (see
// CheckPassword): lower and upper case letters, digits and a symbol.
func NewTemporaryPassword() (string, error) {
	sets := []string{"abcdefghijkmnopqrstuvwxyz", "ABCDEFGHJKLMNPQRSTUVWXYZ", "23456789", "!@#$%&*+-=?"}
	all := strings.Join(sets, "")
	pick := func(from string) (byte, error) {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(from))))
		if err != nil {
			return 0, Internal(err)
		}
		return from[n.Int64()], nil
	}
	out := make([]byte, 0, TemporaryPasswordLength)
	for _, s := range sets { // one of each kind, then any
		c, err := pick(s)
		if err != nil {
			return "", err
		}
		out = append(out, c)
	}
	for len(out) < TemporaryPasswordLength {
		c, err := pick(all)
		if err != nil {
			return "", err
		}
		out = append(out, c)
	}
	// Shuffle, so the kinds are not always in the same places.
	for i := len(out) - 1; i > 0; i-- {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(i+1)))
		if err != nil {
			return "", Internal(err)
		}
		j := n.Int64()
		out[i], out[j] = out[j], out[i]
	}
	return string(out), nil
}

// MinPasswordLength is the shortest password the console accepts (the user pool's policy).
const MinPasswordLength = 12

// CheckPassword checks a new password against the console's policy, the same as the user pool's
// (template.yaml): at least MinPasswordLength characters with a lower-case letter, an upper-case
// letter, a digit and a symbol; KindInvalid naming field otherwise.
func CheckPassword(field, pw string) error {
	var lower, upper, digit, symbol bool
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case r > ' ' && r < 0x7f:
			symbol = true
		}
	}
	if len([]rune(pw)) < MinPasswordLength || len(pw) > 256 || !lower || !upper || !digit || !symbol {
		return invalid(field, "the password must have at least %d characters, with lower-case and upper-case letters, a digit and a symbol", MinPasswordLength)
	}
	return nil
}
