package patio

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"slices"
	"strings"
	"time"
)

// Plan is a team's subscription plan, which sets its request limits.
type Plan string

// The plans.
const (
	PlanStarter      Plan = "starter"
	PlanProfessional Plan = "professional"
	PlanAutoshopping Plan = "autoshopping"
)

// Plans lists every plan.
var Plans = []Plan{PlanStarter, PlanProfessional, PlanAutoshopping}

// Limits are a plan's request budgets. PerDay 0 means unlimited.
type Limits struct {
	PerMinute int
	PerDay    int
}

// Limits returns the plan's request budgets per UTC minute and per UTC day.
func (p Plan) Limits() Limits {
	switch p {
	case PlanProfessional:
		return Limits{PerMinute: 300, PerDay: 10000}
	case PlanAutoshopping:
		return Limits{PerMinute: 1000}
	default:
		return Limits{PerMinute: 60, PerDay: 1000}
	}
}

// ParsePlan returns the plan named s, or KindInvalid.
func ParsePlan(s string) (Plan, error) {
	if p := Plan(s); p.Valid() {
		return p, nil
	}
	return "", Invalidf("plan must be one of starter, professional, autoshopping")
}

// Valid reports whether p is one of the plans.
func (p Plan) Valid() bool { return slices.Contains(Plans, p) }

// Team is an account: the owner of records, keys and webhooks.
type Team struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Plan      Plan      `json:"plan"`
	CreatedAt Timestamp `json:"created_at"`
	// GatewayKeyID and GatewayKey are the team's API Gateway API key on AWS (docs/edge.md): its id,
	// for moving it between usage plans, and its value, which the authorizer returns as the
	// usageIdentifierKey so API Gateway meters the team against its plan's usage plan. Both are
	// empty on the local stack. They are operators' data, never part of an API response; the value
	// is never printed.
	GatewayKeyID string `json:"gateway_key_id,omitempty"`
	GatewayKey   string `json:"-"`
	// TimeZone is the team's IANA time zone (DefaultTimeZone unless set), for dates that expire:
	// a financial record is overdue from the team's midnight after its due_date.
	TimeZone string `json:"time_zone"`
	// Language is the language of the team's emails (invitations, webhook warnings): one of
	// TeamLanguages; "" reads as DefaultLanguage (Lang).
	Language string `json:"language,omitempty"`
}

// DefaultTimeZone is a team's time zone until set.
const DefaultTimeZone = "America/Sao_Paulo"

// DefaultLanguage is a team's language until set.
const DefaultLanguage = "pt-BR"

// TeamLanguages are the languages a team's emails can be written in.
var TeamLanguages = []string{"pt-BR", "en"}

// Lang returns the team's language (DefaultLanguage until set).
func (t Team) Lang() string {
	if t.Language == "" {
		return DefaultLanguage
	}
	return t.Language
}

// CheckTimeZone returns the location of an IANA time zone name, or KindInvalid. The binary must
// carry the time zone database (import time/tzdata) where the system has none.
func CheckTimeZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, Invalidf("time zone must be an IANA name such as America/Sao_Paulo")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, Invalidf("time zone %q is not an IANA time zone name", name)
	}
	return loc, nil
}

// Access is what a request does to a resource's records: AccessRead (GET) or AccessWrite (POST,
// PUT, DELETE). A key needs the scope of each access it makes (Access.Scope).
type Access string

// The accesses a key's scopes grant.
const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)

// Scope returns the name of the scope that grants the access to a resource's records, as a key
// carries it: "<resource>:<access>" ("vehicles:read").
func (a Access) Scope(resource string) string { return resource + ":" + string(a) }

// ScopedResources are the resources whose records a key's scopes grant access to, each read and
// written apart.
var ScopedResources = []string{"vehicles", "clients", "deals"}

// Scopes are the scopes a key may carry: each scoped resource's read, then its write.
var Scopes = func() []string {
	var out []string
	for _, r := range ScopedResources {
		out = append(out, AccessRead.Scope(r), AccessWrite.Scope(r))
	}
	return out
}()

// Key statuses.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
)

// APIKey is an API key as stored: never the key itself, only its SHA-256 hash.
type APIKey struct {
	ID     string `json:"id"`
	TeamID string `json:"team_id"`
	Name   string `json:"name"`
	// Hint is the key's start ("dk_live_AbCd"), so that people can tell their keys apart; too
	// short to guess the rest ("" for keys made before hints were kept).
	Hint      string    `json:"hint,omitempty"`
	Hash      string    `json:"-"`
	Scopes    []string  `json:"scopes"`
	Status    string    `json:"status"`
	CreatedAt Timestamp `json:"created_at"`
	// LastUsedAt is when an API request last used the key (to the minute; zero: never).
	LastUsedAt time.Time `json:"last_used_at,omitzero"`
}

// KeyUseEvery is how stale a key's last use may grow before a request records it again: a key's
// last use is known to the minute, and a busy key costs one write a minute, not one a request.
const KeyUseEvery = time.Minute

// UseIsStale reports whether a request at now should record itself as the key's last use.
func (k APIKey) UseIsStale(now time.Time) bool { return now.Sub(k.LastUsedAt) >= KeyUseEvery }

// KeyUseNoter records when a key was used.
type KeyUseNoter interface {
	// NoteKeyUse records at as the last use of the key with this hash, unless a use within
	// KeyUseEvery of it is recorded already.
	NoteKeyUse(ctx context.Context, hash string, at time.Time) error
}

// Has reports whether the key carries scope.
func (k APIKey) Has(scope string) bool { return contains(k.Scopes, scope) }

// Key prefixes: live keys on AWS, test keys on the local stack.
const (
	LiveKeyPrefix = "dk_live_"
	TestKeyPrefix = "dk_test_"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewKeySecret returns a fresh key: prefix followed by 40 random base62 characters.
func NewKeySecret(prefix string) (string, error) {
	var b strings.Builder
	b.WriteString(prefix)
	limit := big.NewInt(int64(len(base62)))
	for range 40 {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	return b.String(), nil
}

// HashKey returns the lowercase hex SHA-256 of a key, the only form in which keys are stored.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// wellFormedKey reports whether s looks like a key, so malformed ones never reach the store.
func wellFormedKey(s string) bool {
	rest, ok := strings.CutPrefix(s, LiveKeyPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(s, TestKeyPrefix)
	}
	if !ok || len(rest) < 32 || len(rest) > 128 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !strings.ContainsRune(base62, rune(rest[i])) {
			return false
		}
	}
	return true
}

// ParseScopes reads a comma-separated scope list; empty means every scope.
func ParseScopes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return append([]string(nil), Scopes...), nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if !contains(Scopes, v) {
			return nil, Invalidf("scopes must be a comma-separated list of %s", strings.Join(Scopes, ", "))
		}
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// KeyStore finds keys and teams for authentication.
type KeyStore interface {
	// KeyByHash returns the key with this hash, or a KindNotFound error.
	KeyByHash(ctx context.Context, hash string) (APIKey, error)
	// Team returns the team, or a KindNotFound error.
	Team(ctx context.Context, id string) (Team, error)
}

// Principal is who a request acts for.
type Principal struct {
	Key  APIKey
	Team Team
}

// KeyTeamReader is a KeyStore that can also read a key and a team in one round trip.
type KeyTeamReader interface {
	// KeyAndTeam returns the key with this hash and the team with this id, read together: a
	// KindNotFound error when there is no such key, the zero Team when there is no such team.
	KeyAndTeam(ctx context.Context, hash, teamID string) (APIKey, Team, error)
}

// Authenticate resolves an Authorization header value ("Bearer <key>", scheme case-insensitive) to
// the key's team. A missing, malformed, unknown or revoked key is KindUnauthenticated.
func Authenticate(ctx context.Context, store KeyStore, header string) (Principal, error) {
	return AuthenticateHinted(ctx, store, header, "")
}

// AuthenticateHinted is Authenticate given the team an edge in front of the API (API Gateway's
// authorizer) already found for this header. The hint only saves a round trip: when store is a
// KeyTeamReader, the key and the hinted team are read together, and the team is kept only if it is
// the key's own; otherwise (no hint, or not the key's team) the key's team is read after the key.
// Either way the key itself decides, read now: a key revoked since the edge cached its answer is
// KindUnauthenticated.
func AuthenticateHinted(ctx context.Context, store KeyStore, header, teamHint string) (Principal, error) {
	scheme, secret, ok := strings.Cut(strings.TrimSpace(header), " ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "bearer") || !wellFormedKey(secret) {
		return Principal{}, Errorf(KindUnauthenticated, "missing or invalid API key")
	}
	var key APIKey
	var team Team
	var err error
	if both, ok := store.(KeyTeamReader); ok && teamHint != "" {
		key, team, err = both.KeyAndTeam(ctx, HashKey(secret), teamHint)
		if team.ID != key.TeamID {
			team = Team{} // not the key's team: the key's own is read below
		}
	} else {
		key, err = store.KeyByHash(ctx, HashKey(secret))
	}
	if IsKind(err, KindNotFound) || (err == nil && key.Status != KeyActive) {
		return Principal{}, Errorf(KindUnauthenticated, "missing or invalid API key")
	}
	if err != nil {
		return Principal{}, err
	}
	if team.ID == "" {
		team, err = store.Team(ctx, key.TeamID)
		if IsKind(err, KindNotFound) {
			return Principal{}, Errorf(KindUnauthenticated, "missing or invalid API key")
		}
		if err != nil {
			return Principal{}, err
		}
	}
	return Principal{Key: key, Team: team}, nil
}

// Authorize checks that the principal's key carries the scope of the access to the resource's
// records (KindForbidden otherwise).
func (p Principal) Authorize(resource string, a Access) error {
	if scope := a.Scope(resource); !p.Key.Has(scope) {
		return Errorf(KindForbidden, "this API key lacks the %s scope", scope)
	}
	return nil
}

// NewTeam validates and builds a team.
func NewTeam(name, email, plan string) (Team, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 200 {
		return Team{}, Invalidf("name must have 1 to 200 characters")
	}
	email, err := normalizeEmail(email)
	if err != nil {
		return Team{}, Invalidf("email must be a valid address") // normalizeEmail's one reason
	}
	p, err := ParsePlan(plan)
	if err != nil {
		return Team{}, err
	}
	id, now := NewID()
	return Team{ID: id, Name: name, Email: email, Plan: p, CreatedAt: NewTimestamp(now), TimeZone: DefaultTimeZone}, nil
}

// NewAPIKey builds a key for a team and returns it with its secret, which exists only in this
// return value: the store keeps the hash.
func NewAPIKey(teamID, name string, scopes []string, prefix string) (APIKey, string, error) {
	// keyHintChars of the key's random part are kept as its hint: 4 of 32+ base62 characters.
	const keyHintChars = 4
	secret, err := NewKeySecret(prefix)
	if err != nil {
		return APIKey{}, "", err
	}
	id, now := NewID()
	return APIKey{ID: id, TeamID: teamID, Name: strings.TrimSpace(name), Hint: secret[:len(prefix)+keyHintChars], Hash: HashKey(secret),
		Scopes: scopes, Status: KeyActive, CreatedAt: NewTimestamp(now)}, secret, nil
}
