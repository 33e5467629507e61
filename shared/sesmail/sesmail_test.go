package sesmail_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sesmail"
)

// The sender is verified once (again is fine); invitations and alerts then land in moto's SES as
// sent, from the sender, with their subject and text, accents and all.
func TestSend(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	ctx := context.Background()
	stamp := time.Now().UnixNano()
	from, to := fmt.Sprintf("alerts+%d@patio.example", stamp), fmt.Sprintf("ana+%d@dealer.example", stamp)
	m := sesmail.New(cfg, from)
	for range 2 {
		if err := m.VerifySender(ctx); err != nil {
			t.Fatalf("VerifySender = %v", err)
		}
	}

	inv := patio.Invitation{To: to, TeamName: "Revenda São João", Role: patio.RoleAdmin, InvitedBy: "joão@dealer.example",
		TemporaryPassword: "Temporary-Pass-1", ConsoleURL: "https://console.patio.example/console/login"}
	if err := m.SendInvitation(ctx, inv); err != nil {
		t.Fatalf("SendInvitation = %v", err)
	}
	if err := m.SendAlert(ctx, to, "Webhook desativado", "O webhook https://r.example/h foi desativado."); err != nil {
		t.Fatalf("SendAlert = %v", err)
	}
	got := testenv.SentEmails(t, to)
	subject, body := inv.Message()
	if len(got) != 2 {
		t.Fatalf("emails to %s = %+v; want the invitation and the alert", to, got)
	}
	if got[0].Source != from || got[0].Subject != subject || got[0].Body != body ||
		strings.Join(got[0].Destinations["ToAddresses"], ",") != to {
		t.Errorf("invitation = %+v; want from %s to %s, subject %q and the invitation's text", got[0], from, to, subject)
	}
	if got[1].Subject != "Webhook desativado" || got[1].Body != "O webhook https://r.example/h foi desativado." {
		t.Errorf("alert = %+v; want its subject and text", got[1])
	}
}

// A sender SES has not verified is refused, with SES's reason.
func TestUnverifiedSender(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	m := sesmail.New(cfg, fmt.Sprintf("nobody+%d@unverified.example", time.Now().UnixNano()))
	err := m.SendAlert(context.Background(), "ana@dealer.example", "s", "t")
	if err == nil || awsjson.Code(err) != "MessageRejected" {
		t.Errorf("SendAlert from an unverified sender = %v; want SES's MessageRejected", err)
	}
}
