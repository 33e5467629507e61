package patio

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The use cases of a team's own administration — members and roles, API keys, team settings —
// shared by the console and the operators' tool, so that no rule exists twice. Each change is
// written to the audit log with the actor its context carries (WithActor). Who may call which use
// case is the caller's check (Role.May, Role.MayInvite): the operators' tool may call them all.

// MemberStore keeps memberships.
type MemberStore interface {
	// AddMember stores a new membership; KindConflict when the person is already a member.
	AddMember(ctx context.Context, m Member) error
	// Member returns one membership, or KindNotFound.
	Member(ctx context.Context, teamID, email string) (Member, error)
	// Members returns a team's members, by email.
	Members(ctx context.Context, teamID string) ([]Member, error)
	// Memberships returns a person's memberships, with their teams' names.
	Memberships(ctx context.Context, email string) ([]Member, error)
	// SetRole changes a member's role (KindNotFound for no such member); ErrLastOwner when the
	// team would be left without an owner.
	SetRole(ctx context.Context, teamID, email string, role Role, now time.Time) (Member, error)
	// RemoveMember ends a membership (KindNotFound for no such member); ErrLastOwner when the team
	// would be left without an owner.
	RemoveMember(ctx context.Context, teamID, email string) (Member, error)
	// ActivateMember marks an invited membership active (an active one is left as it is).
	ActivateMember(ctx context.Context, teamID, email string, now time.Time) error
}

// TeamStore keeps teams.
type TeamStore interface {
	// Team returns the team, or KindNotFound.
	Team(ctx context.Context, id string) (Team, error)
	// SetTeamProfile changes a team's name, contact email, time zone and language (KindNotFound for no such
	// team).
	SetTeamProfile(ctx context.Context, id, name, email, timeZone, language string) (Team, error)
}

// Identity is the user directory the console signs people in with (Amazon Cognito).
type Identity interface {
	// CreateUser creates a user with a temporary password, which the first sign-in must change.
	// When the user exists already it changes nothing and reports created false.
	CreateUser(ctx context.Context, email, temporaryPassword string) (created bool, err error)
	// ResetUser gives a user (created if missing) a new temporary password, which the next
	// sign-in must change.
	ResetUser(ctx context.Context, email, temporaryPassword string) error
	// SignIn checks an email and password: KindUnauthenticated for a wrong pair (one message
	// whatever was wrong). When the password is temporary, the result asks for a new one.
	SignIn(ctx context.Context, email, password string) (SignIn, error)
	// CompleteSignIn sets the new password a temporary one requires, with the challenge SignIn
	// returned: KindInvalid naming "password" when the policy refuses it, KindUnauthenticated when
	// the challenge has expired.
	CompleteSignIn(ctx context.Context, email, challenge, newPassword string) error
	// ChangePassword changes a signed-in person's password: KindInvalid naming "current_password"
	// when the current one is wrong, "password" when the policy refuses the new one.
	ChangePassword(ctx context.Context, email, current, newPassword string) error
}

// SignIn is the result of a correct email and password.
type SignIn struct {
	// NewPasswordRequired is set when the password was temporary: Challenge then carries the
	// identity provider's state for CompleteSignIn.
	NewPasswordRequired bool
	Challenge           string
}

// Invitation is an invitation email: to whom, for which team and role, from whom, and the temporary
// password (empty when the person already had one: they sign in with it).
type Invitation struct {
	To                string
	TeamName          string
	Role              Role
	InvitedBy         string
	TemporaryPassword string
	// ConsoleURL is where to sign in ("" when unknown: the email then says to ask for it).
	ConsoleURL string
	// Language is the team's (Team.Lang): the email is written in it.
	Language string
}

// Mailer sends the console's own emails.
type Mailer interface {
	// SendInvitation sends an invitation.
	SendInvitation(ctx context.Context, inv Invitation) error
}

// Members is the use cases of a team's memberships.
type Members struct {
	Store    MemberStore
	Teams    TeamStore
	Identity Identity
	Mail     Mailer
	Audit    Auditor
	Now      func() time.Time
}

func (s Members) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Invite makes email a member of the team with role, creates the person's user with a temporary
// password unless they have one, and emails the invitation (consoleURL says where to sign in).
// KindInvalid for a bad email or role, KindConflict when already a member.
func (s Members) Invite(ctx context.Context, teamID, email string, role Role, consoleURL string) (Member, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return Member{}, err
	}
	if !slices.Contains(Roles, role) {
		return Member{}, invalid("role", "role must be one of owner, admin, member, viewer")
	}
	team, err := s.Teams.Team(ctx, teamID)
	if err != nil {
		return Member{}, err
	}
	ts := NewTimestamp(s.now())
	m := Member{TeamID: teamID, Email: email, Role: role, Status: MemberInvited, InvitedBy: ActorOf(ctx).ID,
		CreatedAt: ts, UpdatedAt: ts}
	if err := s.Store.AddMember(ctx, m); err != nil {
		return Member{}, err
	}
	temp, err := NewTemporaryPassword()
	if err != nil {
		return m, err
	}
	created, err := s.Identity.CreateUser(ctx, email, temp)
	if err != nil {
		return m, err
	}
	if !created {
		temp = ""
	}
	if err := s.Mail.SendInvitation(ctx, Invitation{To: email, TeamName: team.Name, Role: role,
		InvitedBy: m.InvitedBy, TemporaryPassword: temp, ConsoleURL: consoleURL, Language: team.Lang()}); err != nil {
		return m, err
	}
	return m, Audit(ctx, s.Audit, teamID, "member.invite", "member:"+email, "email", "role")
}

// Reinvite sends a member a new invitation with a new temporary password, which their next
// sign-in must change: the way back in after a forgotten password. KindNotFound for no such member.
func (s Members) Reinvite(ctx context.Context, teamID, email, consoleURL string) (Member, error) {
	m, err := s.Store.Member(ctx, teamID, strings.ToLower(strings.TrimSpace(email)))
	if err != nil {
		return m, err
	}
	team, err := s.Teams.Team(ctx, teamID)
	if err != nil {
		return m, err
	}
	temp, err := NewTemporaryPassword()
	if err != nil {
		return m, err
	}
	if err := s.Identity.ResetUser(ctx, m.Email, temp); err != nil {
		return m, err
	}
	if err := s.Mail.SendInvitation(ctx, Invitation{To: m.Email, TeamName: team.Name, Role: m.Role,
		InvitedBy: ActorOf(ctx).ID, TemporaryPassword: temp, ConsoleURL: consoleURL, Language: team.Lang()}); err != nil {
		return m, err
	}
	return m, Audit(ctx, s.Audit, teamID, "member.reinvite", "member:"+m.Email, "password")
}

// ChangeRole gives a member another role; ErrLastOwner when that would leave no owner.
func (s Members) ChangeRole(ctx context.Context, teamID, email string, role Role) (Member, error) {
	if !slices.Contains(Roles, role) {
		return Member{}, invalid("role", "role must be one of owner, admin, member, viewer")
	}
	was, err := s.Store.Member(ctx, teamID, strings.ToLower(strings.TrimSpace(email)))
	if err != nil || was.Role == role {
		return was, err
	}
	m, err := s.Store.SetRole(ctx, teamID, was.Email, role, s.now())
	if err != nil {
		return m, err
	}
	return m, Audit(ctx, s.Audit, teamID, "member.role", "member:"+m.Email, "role")
}

// Remove ends a membership; ErrLastOwner when that would leave no owner. The person's user stays
// (they may belong to other teams); their sessions lose the team on their next request.
func (s Members) Remove(ctx context.Context, teamID, email string) (Member, error) {
	m, err := s.Store.RemoveMember(ctx, teamID, strings.ToLower(strings.TrimSpace(email)))
	if err != nil {
		return m, err
	}
	return m, Audit(ctx, s.Audit, teamID, "member.remove", "member:"+m.Email)
}

// List returns a team's members.
func (s Members) List(ctx context.Context, teamID string) ([]Member, error) {
	return s.Store.Members(ctx, teamID)
}

// KeyAdminStore is where API keys are kept, for their administration.
type KeyAdminStore interface {
	// CreateKey stores a new key.
	CreateKey(ctx context.Context, k APIKey) error
	// RevokeKey marks a key revoked (KindNotFound for an unknown id).
	RevokeKey(ctx context.Context, id string) (APIKey, error)
	// KeyByID returns a key by its id, or KindNotFound.
	KeyByID(ctx context.Context, id string) (APIKey, error)
	// ListKeys returns a team's keys.
	ListKeys(ctx context.Context, teamID string) ([]APIKey, error)
}

// Keys is the use cases of a team's API keys.
type Keys struct {
	Store KeyAdminStore
	Audit Auditor
	// Prefix starts every new key: LiveKeyPrefix on AWS, TestKeyPrefix on the local stack.
	Prefix string
}

// Create makes a key for the team with a name (at most 100 characters) and scopes (at least one;
// KindInvalid naming "scopes" otherwise) and returns it with the key itself, which exists only in
// this return value.
func (s Keys) Create(ctx context.Context, teamID, name string, scopes []string) (APIKey, string, error) {
	var p Problems
	name = strings.TrimSpace(name)
	if len([]rune(name)) > 100 {
		p.Add(InBody, "name", "name must have at most 100 characters")
	}
	var clean []string
	for _, sc := range scopes {
		if !slices.Contains(Scopes, sc) {
			p.Add(InBody, "scopes", "scopes must be among %s", strings.Join(Scopes, ", "))
			break
		}
		if !slices.Contains(clean, sc) {
			clean = append(clean, sc)
		}
	}
	if len(scopes) == 0 {
		p.Add(InBody, "scopes", "choose at least one scope")
	}
	if err := p.Err(); err != nil {
		return APIKey{}, "", err
	}
	prefix := s.Prefix
	if prefix == "" {
		prefix = LiveKeyPrefix
	}
	k, secret, err := NewAPIKey(teamID, name, clean, prefix)
	if err != nil {
		return APIKey{}, "", err
	}
	if err := s.Store.CreateKey(ctx, k); err != nil {
		return APIKey{}, "", err
	}
	return k, secret, Audit(ctx, s.Audit, teamID, "key.create", "key:"+k.ID, "name", "scopes")
}

// Revoke revokes a key of the team (teamID "": of any team, for operators). A key of another team
// is KindNotFound. The next API request with it is refused.
func (s Keys) Revoke(ctx context.Context, teamID, id string) (APIKey, error) {
	k, err := s.Store.KeyByID(ctx, id)
	if err != nil {
		return k, err
	}
	if teamID != "" && k.TeamID != teamID {
		return APIKey{}, NotFoundf("key not found")
	}
	if k.Status == KeyRevoked {
		return k, nil
	}
	if k, err = s.Store.RevokeKey(ctx, id); err != nil {
		return k, err
	}
	return k, Audit(ctx, s.Audit, k.TeamID, "key.revoke", "key:"+k.ID, "status")
}

// List returns a team's keys, newest first.
func (s Keys) List(ctx context.Context, teamID string) ([]APIKey, error) {
	ks, err := s.Store.ListKeys(ctx, teamID)
	slices.SortFunc(ks, func(a, b APIKey) int { return strings.Compare(b.ID, a.ID) })
	return ks, err
}

// Teams is the use cases of a team's own settings.
type Teams struct {
	Store TeamStore
	Audit Auditor
}

// Get returns a team, or KindNotFound.
func (s Teams) Get(ctx context.Context, id string) (Team, error) { return s.Store.Team(ctx, id) }

// TeamSettings are what a team's owners set: its name, contact email, time zone and the language
// of its emails.
type TeamSettings struct {
	Name, Email, TimeZone, Language string
}

// UpdateSettings changes the team's name, contact email, time zone and language, reporting every
// problem at once (KindInvalid naming name, email, time_zone, language).
func (s Teams) UpdateSettings(ctx context.Context, id string, set TeamSettings) (Team, error) {
	name, email, timeZone, language := set.Name, set.Email, set.TimeZone, set.Language
	var p Problems
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 200 {
		p.Add(InBody, "name", "name must have 1 to 200 characters")
	}
	email, err := normalizeEmail(email)
	if err != nil {
		p.Add(InBody, "email", "email must be a valid address")
	}
	if _, err := CheckTimeZone(timeZone); err != nil {
		p.AddError(InBody, "time_zone", err)
	}
	if !slices.Contains(TeamLanguages, language) {
		p.Add(InBody, "language", "language must be one of %s", strings.Join(TeamLanguages, ", "))
	}
	if err := p.Err(); err != nil {
		return Team{}, err
	}
	was, err := s.Store.Team(ctx, id)
	if err != nil {
		return was, err
	}
	var changed []string
	for _, f := range []struct {
		name     string
		was, now string
	}{{"name", was.Name, name}, {"email", was.Email, email}, {"time_zone", was.TimeZone, timeZone},
		{"language", was.Lang(), language}} {
		if f.was != f.now {
			changed = append(changed, f.name)
		}
	}
	if len(changed) == 0 {
		return was, nil
	}
	t, err := s.Store.SetTeamProfile(ctx, id, name, email, timeZone, language)
	if err != nil {
		return t, err
	}
	return t, Audit(ctx, s.Audit, id, "team.settings", "team:"+id, changed...)
}

// invitationTexts are an invitation's words in one language; roles names the roles.
type invitationTexts struct {
	subject, hello, signIn, email, temporary, known, askAddress string
	roles                                                       map[Role]string
}

// invitations are the invitation's words by language (format strings whose arguments come in the
// same order in every language).
var invitations = map[string]invitationTexts{
	"pt-BR": {subject: "Convite para o console Patio de %s", hello: "Olá,\n\n%s convidou você para a equipe %s no console Patio, como %s.\n\n",
		signIn: "Entre em: %s\n", email: "E-mail: %s\n",
		temporary: "Senha temporária: %s\n(no primeiro acesso você escolhe a sua senha; a temporária vale 7 dias)\n",
		known:     "Use a senha que você já tem no console Patio.\n", askAddress: "(peça o endereço do console a quem convidou)",
		roles: map[Role]string{RoleOwner: "proprietário", RoleAdmin: "administrador", RoleMember: "membro", RoleViewer: "leitor"}},
	"en": {subject: "Invitation to %s's Patio console", hello: "Hello,\n\n%s invited you to the team %s on the Patio console, as %s.\n\n",
		signIn: "Sign in at: %s\n", email: "Email: %s\n",
		temporary: "Temporary password: %s\n(you choose your own password when you first sign in; the temporary one lasts 7 days)\n",
		known:     "Use the password you already have on the Patio console.\n", askAddress: "(ask whoever invited you for the console's address)",
		roles: map[Role]string{RoleOwner: "owner", RoleAdmin: "admin", RoleMember: "member", RoleViewer: "viewer"}},
}

// Message returns the invitation email's subject and plain-text body, in the team's language
// (Portuguese for any other).
func (inv Invitation) Message() (subject, body string) {
	tx, ok := invitations[inv.Language]
	if !ok {
		tx = invitations[DefaultLanguage]
	}
	where := inv.ConsoleURL
	if where == "" {
		where = tx.askAddress
	}
	var b strings.Builder
	fmt.Fprintf(&b, tx.hello, inv.InvitedBy, inv.TeamName, tx.roles[inv.Role])
	fmt.Fprintf(&b, tx.signIn, where)
	fmt.Fprintf(&b, tx.email, inv.To)
	if inv.TemporaryPassword != "" {
		fmt.Fprintf(&b, tx.temporary, inv.TemporaryPassword)
	} else {
		b.WriteString(tx.known)
	}
	return fmt.Sprintf(tx.subject, inv.TeamName), b.String()
}
