package accountdb

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// Memberships live in AccountsTable beside their team (docs/storage.md, "The console"): a member
// row in the team's partition (pk team#<id>, sk member#<email>) for the team's list, and its mirror
// in the person's partition (pk user#<email>, sk team#<id>) for the person's teams. Both are written
// in one transaction with the team row, which counts the team's owners in `owners`, so that no
// change can leave a team without one.

// memberRow is a membership in its team's partition.
type memberRow struct {
	PK        string `dynamo:"pk,hash"`
	SK        string `dynamo:"sk,range"`
	Email     string `dynamo:"email"`
	Team      string `dynamo:"team"`
	Role      string `dynamo:"role"`
	Status    string `dynamo:"status"`
	InvitedBy string `dynamo:"invited_by"`
	CreatedAt string `dynamo:"created_at"`
	UpdatedAt string `dynamo:"updated_at"`
}

// userRow mirrors a membership in the person's partition.
type userRow struct {
	PK   string `dynamo:"pk,hash"`
	SK   string `dynamo:"sk,range"`
	Team string `dynamo:"team"`
	Role string `dynamo:"role"`
}

const memberPrefix = "member#"

func memberKey(email string) string { return memberPrefix + email }
func userPK(email string) string    { return "user#" + email }

func (r memberRow) member() (patio.Member, error) {
	created, err := patio.ParseTimestamp(r.CreatedAt)
	if err != nil {
		return patio.Member{}, err
	}
	updated, err := patio.ParseTimestamp(r.UpdatedAt)
	return patio.Member{TeamID: r.Team, Email: r.Email, Role: patio.Role(r.Role), Status: r.Status,
		InvitedBy: r.InvitedBy, CreatedAt: created, UpdatedAt: updated}, err
}

// ownersDelta is how a change of role moves the team's owner count.
func ownersDelta(from, to patio.Role) int {
	switch {
	case from == to:
		return 0
	case to == patio.RoleOwner:
		return 1
	case from == patio.RoleOwner:
		return -1
	}
	return 0
}

// teamOwners returns the update of the team row that moves its owner count by delta: a decrease
// only while another owner remains, so the transaction fails rather than leave none.
func (s *Members) teamOwners(teamID string, delta int) *dynamo.Update {
	u := s.accounts().Update("pk", teamPK(teamID)).Range("sk", "team")
	if delta < 0 {
		return u.Add("owners", delta).If("'owners' > ?", -delta)
	}
	return u.Add("owners", delta).If("attribute_exists(pk)")
}

// AddMember implements patio.MemberStore.
func (s *Members) AddMember(ctx context.Context, m patio.Member) error {
	row := memberRow{PK: teamPK(m.TeamID), SK: memberKey(m.Email), Email: m.Email, Team: m.TeamID, Role: string(m.Role),
		Status: m.Status, InvitedBy: m.InvitedBy, CreatedAt: m.CreatedAt.String(), UpdatedAt: m.UpdatedAt.String()}
	ops := []storecore.Op{
		{Put: s.accounts().Put(row).If("attribute_not_exists(pk)"),
			Failed: patio.Conflictf("%s is already a member of this team", m.Email)},
		{Put: s.accounts().Put(userRow{PK: userPK(m.Email), SK: teamPK(m.TeamID), Team: m.TeamID, Role: string(m.Role)})},
		{Upd: s.teamOwners(m.TeamID, ownersDelta("", m.Role)), Failed: patio.NotFoundf("team not found")},
	}
	return storecore.Wrap(s.db.Run(ctx, ops), "add member", m.Email)
}

// Member implements patio.MemberStore (strongly consistent: a role change applies to the next
// request).
func (s *Members) Member(ctx context.Context, teamID, email string) (patio.Member, error) {
	var row memberRow
	err := s.accounts().Get("pk", teamPK(teamID)).Range("sk", dynamo.Equal, memberKey(email)).Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.Member{}, storecore.Wrap(storecore.NotFound(err, "member"), "get member", email)
	}
	m, err := row.member()
	return m, storecore.Wrap(err, "decode member", email)
}

// Members implements patio.MemberStore.
func (s *Members) Members(ctx context.Context, teamID string) ([]patio.Member, error) {
	var rows []memberRow
	err := s.accounts().Get("pk", teamPK(teamID)).Range("sk", dynamo.BeginsWith, memberPrefix).Consistent(true).All(ctx, &rows)
	if err != nil {
		return nil, storecore.Wrap(err, "list members", teamID)
	}
	out, err := storecore.DecodeRows(rows, memberRow.member)
	return out, storecore.Wrap(err, "decode members", teamID)
}

// Memberships implements patio.MemberStore: the person's mirror rows, then their teams' names in
// one BatchGetItem; sorted by team name.
func (s *Members) Memberships(ctx context.Context, email string) ([]patio.Member, error) {
	var rows []userRow
	err := s.accounts().Get("pk", userPK(email)).Consistent(true).All(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, storecore.Wrap(err, "list memberships", email)
	}
	keys := make([]dynamo.Keyed, len(rows))
	for i, r := range rows {
		keys[i] = dynamo.Keys{teamPK(r.Team), "team"}
	}
	var teams []teamRow
	if err := s.accounts().Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &teams); err != nil {
		return nil, storecore.Wrap(err, "read teams of", email)
	}
	names := map[string]string{}
	for _, t := range teams {
		names[t.ID] = t.Name
	}
	out := make([]patio.Member, 0, len(rows))
	for _, r := range rows {
		if name, ok := names[r.Team]; ok {
			out = append(out, patio.Member{TeamID: r.Team, Email: email, Role: patio.Role(r.Role), TeamName: name})
		}
	}
	slices.SortFunc(out, func(a, b patio.Member) int {
		return cmp.Or(cmp.Compare(patio.Fold(a.TeamName), patio.Fold(b.TeamName)), cmp.Compare(a.TeamID, b.TeamID))
	})
	return out, nil
}

// SetRole implements patio.MemberStore.
func (s *Members) SetRole(ctx context.Context, teamID, email string, role patio.Role, now time.Time) (patio.Member, error) {
	was, err := s.Member(ctx, teamID, email)
	if err != nil || was.Role == role {
		return was, err
	}
	ts := patio.NewTimestamp(now).String()
	ops := []storecore.Op{
		{Upd: s.accounts().Update("pk", teamPK(teamID)).Range("sk", memberKey(email)).Set("role", string(role)).
			Set("updated_at", ts).If("'role' = ?", string(was.Role)),
			Failed: patio.Conflictf("the member's role changed meanwhile; try again")},
		{Upd: s.accounts().Update("pk", userPK(email)).Range("sk", teamPK(teamID)).Set("role", string(role))},
	}
	if d := ownersDelta(was.Role, role); d != 0 {
		ops = append(ops, storecore.Op{Upd: s.teamOwners(teamID, d), Failed: patio.ErrLastOwner})
	}
	if err := s.db.Run(ctx, ops); err != nil {
		return was, storecore.Wrap(err, "set role of", email)
	}
	was.Role, was.UpdatedAt = role, patio.NewTimestamp(now)
	return was, nil
}

// RemoveMember implements patio.MemberStore.
func (s *Members) RemoveMember(ctx context.Context, teamID, email string) (patio.Member, error) {
	was, err := s.Member(ctx, teamID, email)
	if err != nil {
		return was, err
	}
	ops := []storecore.Op{
		{Del: s.accounts().Delete("pk", teamPK(teamID)).Range("sk", memberKey(email)).If("'role' = ?", string(was.Role)),
			Failed: patio.Conflictf("the member's role changed meanwhile; try again")},
		{Del: s.accounts().Delete("pk", userPK(email)).Range("sk", teamPK(teamID))},
	}
	if was.Role == patio.RoleOwner {
		ops = append(ops, storecore.Op{Upd: s.teamOwners(teamID, -1), Failed: patio.ErrLastOwner})
	}
	return was, storecore.Wrap(s.db.Run(ctx, ops), "remove member", email)
}

// ActivateMember implements patio.MemberStore.
func (s *Members) ActivateMember(ctx context.Context, teamID, email string, now time.Time) error {
	err := s.accounts().Update("pk", teamPK(teamID)).Range("sk", memberKey(email)).Set("status", patio.MemberActive).
		Set("updated_at", patio.NewTimestamp(now).String()).If("'status' = ?", patio.MemberInvited).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return storecore.Wrap(err, "activate member", email)
}
