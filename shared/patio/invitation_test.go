package patio_test

import (
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// An invitation is written in the team's language only: Portuguese until the team chooses English.
func TestInvitationInTheTeamsLanguage(t *testing.T) {
	inv := patio.Invitation{To: "ana@dealer.example", TeamName: "Revenda", Role: patio.RoleMember, InvitedBy: "joao@dealer.example",
		TemporaryPassword: "Temp-1", ConsoleURL: "https://console.example/console/login"}
	for _, tc := range []struct {
		lang          string
		want, notWant []string
	}{
		{"", []string{"Convite para o console Patio de Revenda", "como membro", "Senha temporária: Temp-1", "https://console.example/console/login"},
			[]string{"Invitation", "Sign in"}},
		{"en", []string{"Invitation to Revenda's Patio console", "as member", "Temporary password: Temp-1", "https://console.example/console/login"},
			[]string{"Convite", "Entre em"}},
	} {
		inv.Language = tc.lang
		subject, body := inv.Message()
		text := subject + "\n" + body
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("invitation in %q:\n%s\nwant %q", tc.lang, text, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(text, w) {
				t.Errorf("invitation in %q:\n%s\nwant no %q (one language)", tc.lang, text, w)
			}
		}
	}
}
