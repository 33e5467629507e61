package consoletest

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/dev/testenv"
)

// TestSignInWrongPassword: a wrong password, and an unknown email, get the same generic message,
// and no session.
func TestSignInWrongPassword(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	if got := signIn(t, ctx, tm.OwnerEmail, "Wrong-Password-1!"); got != http.StatusUnprocessableEntity {
		t.Errorf("sign in with a wrong password = %d; want 422", got)
	}
	wrong := text(t, ctx, ".problems")
	if got := signIn(t, ctx, "nobody+"+tm.OwnerEmail, "Owner-Password-1!"); got != http.StatusUnprocessableEntity {
		t.Errorf("sign in with an unknown email = %d; want 422", got)
	}
	if unknown := text(t, ctx, ".problems"); unknown != wrong || !strings.Contains(wrong, "e-mail ou senha incorretos") {
		t.Errorf("messages = %q (wrong password), %q (unknown email); want one generic message", wrong, unknown)
	}
	if got := open(t, ctx, "/console/webhooks"); got != http.StatusOK || !strings.Contains(location(ctx), "/console/login") {
		t.Errorf("after failed sign-ins, /console/webhooks = %d at %s; want the login page", got, location(ctx))
	}
}

// TestInvitationSignInAndOut: an owner invites a member; the invitation email lands in moto's SES
// with a temporary password; the member signs in with it, must choose a new password, then works;
// signing out ends the session at once (the old cookie no longer works).
func TestInvitationSignInAndOut(t *testing.T) {
	tm := newTeam(t)
	owner := browser(t)
	if got := signIn(t, owner, tm.OwnerEmail, tm.OwnerPassword); got != http.StatusOK {
		t.Fatalf("owner sign in = %d; want 200", got)
	}
	if got := open(t, owner, "/console/team"); got != http.StatusOK {
		t.Fatalf("team page = %d", got)
	}
	// The team writes its emails in English from now on (Portuguese until set).
	with(t, owner, chromedp.SetValue(chromedp.ID("team-language"), "en"))
	if got := submit(t, owner, `form[aria-labelledby=settings] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("team settings = %d: %s", got, pageText(t, owner))
	}
	member := fmt.Sprintf("vendedor+%d@dealer.example", time.Now().UnixNano())
	with(t, owner, chromedp.SendKeys(chromedp.ID("invite-email"), member),
		chromedp.SetValue(chromedp.ID("invite-role"), "member"))
	if got := submit(t, owner, `form[aria-labelledby=invite] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("invite = %d; want 200 after the redirect", got)
	}
	if !strings.Contains(pageText(t, owner), member) {
		t.Errorf("the team page does not list the invited %s", member)
	}

	var temp string
	waitFor(t, "the invitation email", 10*time.Second, func() bool {
		for _, m := range testenv.SentEmails(t, member) {
			body := m.Body
			if got := regexp.MustCompile(`Temporary password: (\S+)`).FindStringSubmatch(body); got != nil {
				temp = got[1]
				if !strings.Contains(body, tm.name) || !strings.Contains(body, stack.ConsoleURL+"/console/login") ||
					strings.Contains(body, "Senha") {
					t.Errorf("invitation body = %q; want the team's name and the console's sign-in address, in English only", body)
				}
				return true
			}
		}
		return false
	})

	ctx := browser(t)
	if got := signIn(t, ctx, member, temp); got != http.StatusOK {
		t.Fatalf("sign in with the temporary password = %d; want 200 (the new-password form)", got)
	}
	if h := text(t, ctx, "h1"); h != "Escolha uma nova senha" {
		t.Fatalf("after a temporary password the page is %q; want the new-password form", h)
	}
	with(t, ctx, chromedp.SendKeys(chromedp.ID("password"), "short"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
		t.Errorf("a weak new password = %d; want 422", got)
	}
	if p := text(t, ctx, "#password-problem"); !strings.Contains(p, "12 caracteres") {
		t.Errorf("the weak password's problem = %q; want the policy next to the field", p)
	}
	with(t, ctx, chromedp.SendKeys(chromedp.ID("password"), "Member-Password-2!"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("the new password = %d; want 200", got)
	}
	if h := text(t, ctx, "h1"); h != "Visão geral" {
		t.Errorf("after choosing a password the page is %q; want the overview", h)
	}
	openMenu(t, ctx)
	if !strings.Contains(pageText(t, ctx), "membro") {
		t.Errorf("the member's page does not name their role")
	}

	cookie := sessionCookie(t, ctx)
	if !cookie.HTTPOnly || !cookie.Secure || cookie.SameSite != "Lax" {
		t.Errorf("session cookie HttpOnly=%v Secure=%v SameSite=%v; want HttpOnly, Secure, Lax", cookie.HTTPOnly, cookie.Secure, cookie.SameSite)
	}
	c := newClient(t, cookie.Value)
	if resp, _ := c.get("/console/webhooks"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session cookie outside the browser = %d; want 200", resp.StatusCode)
	}
	if got := submit(t, ctx, `header form[action$="/console/logout"] button`); got != http.StatusOK {
		t.Errorf("sign out = %d; want 200 (the login page)", got)
	}
	if resp, _ := c.get("/console/webhooks"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the old cookie after signing out = %d; want 303 to the login page", resp.StatusCode)
	}
	if resp, _ := c.post("/console/keys", url.Values{"name": {"x"}}, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a post with the old cookie = %d; want 401", resp.StatusCode)
	}
	// The member's new password is permanent: a second sign-in needs no change.
	if got := signIn(t, ctx, member, "Member-Password-2!"); got != http.StatusOK || text(t, ctx, "h1") != "Visão geral" {
		t.Errorf("signing in again = %d at %q; want the overview", got, text(t, ctx, "h1"))
	}
}

// TestChangePasswordAndAudit: a person changes their password (the wrong current one refused next
// to its field); the team's audit log shows each change made in the console with who made it, the
// fields, the address and the request id, filtered by person and action.
func TestChangePasswordAndAudit(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	open(t, ctx, "/console/account/password")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("current_password"), "Not-The-Password-1!"),
		chromedp.SendKeys(chromedp.ID("password"), "Brand-New-Pass-2!"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
		t.Fatalf("a wrong current password = %d; want 422", got)
	}
	if p := text(t, ctx, "#current_password-problem"); !strings.Contains(p, "senha atual") {
		t.Errorf("the problem = %q; want it next to the current password", p)
	}
	with(t, ctx, chromedp.SendKeys(chromedp.ID("current_password"), tm.OwnerPassword),
		chromedp.SendKeys(chromedp.ID("password"), "Brand-New-Pass-2!"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK || !strings.Contains(text(t, ctx, ".done"), "Senha alterada") {
		t.Fatalf("change password = %d", got)
	}
	other := browser(t)
	if got := signIn(t, other, tm.OwnerEmail, "Brand-New-Pass-2!"); got != http.StatusOK || text(t, other, "h1") != "Visão geral" {
		t.Errorf("signing in with the new password = %d", got)
	}

	r := newReceiver(t, always(200))
	id, _ := createWebhook(t, ctx, r.url(), "deal.won")
	open(t, ctx, "/console/webhooks/"+id)
	confirmed(t, ctx, `form[action$="/rotate"] button`)
	open(t, ctx, "/console/audit?"+url.Values{"actor": {tm.OwnerEmail}}.Encode())
	rows := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main tbody tr")].map(r => r.innerText)`))
	if len(rows) != 2 || !strings.Contains(rows[0], "webhook.rotate") || !strings.Contains(rows[1], "webhook.create") {
		t.Fatalf("the owner's audit rows = %q; want the rotation then the creation", rows)
	}
	for _, want := range []string{tm.OwnerEmail, "webhook:" + id, "Segredo de assinatura", "127.0.0.1"} {
		if !strings.Contains(rows[0], want) {
			t.Errorf("the rotation's row %q lacks %q", rows[0], want)
		}
	}
	if !regexp.MustCompile(`[0-9a-f-]{36}`).MatchString(rows[0]) {
		t.Errorf("the rotation's row %q has no request id", rows[0])
	}
	open(t, ctx, "/console/audit?action=webhook.create")
	if n := count(t, ctx, "main tbody tr"); n != 1 {
		t.Errorf("webhook.create entries = %d; want 1", n)
	}
}
