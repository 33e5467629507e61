package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sesmail"
)

type memberJSON struct {
	Email  string `json:"email"`
	Role   string `json:"role"`
	Status string `json:"status"`
}

// The members commands are the console's invitations: a team's first owner, the list, a removal,
// and a team that keeps its last owner; each change is in the team's audit log as the operator's.
func TestMembersCommands(t *testing.T) {
	store := setup(t)
	team := newTeam(t)
	if err := sesmail.New(testenv.AWSConfig(t), os.Getenv("ALERT_SENDER_EMAIL")).VerifySender(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATIO_OPERATOR", "ops-on-call")
	owner := fmt.Sprintf("owner+%d@dealer.example", time.Now().UnixNano())
	m, _ := adminOK[memberJSON](t, "members", "invite", "--team", team, "--email", strings.ToUpper(owner), "--role", "owner")
	if m.Email != owner || m.Role != "owner" || m.Status != "invited" {
		t.Fatalf("members invite = %+v; want %s, owner, invited", m, owner)
	}
	// In the team's language: Portuguese, until the team chooses otherwise.
	if got := testenv.SentEmails(t, owner); len(got) != 1 || !strings.Contains(got[0].Body, "Senha temporária: ") {
		t.Errorf("invitation emails to %s = %q; want one with a temporary password", owner, got)
	}
	admin := "admin+" + owner
	adminOK[memberJSON](t, "members", "invite", "--team", team, "--email", admin, "--role", "admin")
	list, _ := adminOK[struct{ Members []memberJSON }](t, "members", "list", "--team", team)
	if len(list.Members) != 2 {
		t.Errorf("members list = %+v; want the two", list)
	}
	if msg := adminFails(t, "members", "remove", "--team", team, "--email", owner); !strings.Contains(msg, "at least one owner") {
		t.Errorf("removing the last owner = %q; want it refused", msg)
	}
	if msg := adminFails(t, "members", "invite", "--team", team, "--email", "x@dealer.example", "--role", "boss"); !strings.Contains(msg, "role") {
		t.Errorf("an unknown role = %q; want it refused", msg)
	}
	adminOK[memberJSON](t, "members", "remove", "--team", team, "--email", admin)
	entries, _, err := store.AuditPage(context.Background(), team, patio.AuditQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		if e.Actor.Kind != patio.ActorOperator || e.Actor.ID != "ops-on-call" || e.Actor.RequestID == "" {
			t.Errorf("audit entry %s by %+v; want the operator with a request id", e.Action, e.Actor)
		}
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, ","); got != "member.remove,member.invite,member.invite" {
		t.Errorf("audit actions (newest first) = %s; want the two invitations and the removal", got)
	}
}
