package consoletest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// apiStatus sends one request to the public API with key and returns the status.
func apiStatus(t *testing.T, method, path, key string) int {
	t.Helper()
	req, _ := http.NewRequest(method, stack.APIURL+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestAPIKeyCreateAndRevoke: a key created in the console (shown once, with the scopes ticked)
// works on the public API; revoked, it is refused on the next requests.
func TestAPIKeyCreateAndRevoke(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	open(t, ctx, "/console/keys")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("name"), "marketplace"))
	if got := submit(t, ctx, `form[aria-labelledby=new-key-title] button[type=submit]`); got != http.StatusUnprocessableEntity {
		t.Errorf("a key with no scope = %d; want 422", got)
	}
	if p := text(t, ctx, "#scopes-problem"); !strings.Contains(p, "escopo") {
		t.Errorf("no-scope problem = %q; want it next to the scopes", p)
	}
	with(t, ctx, chromedp.Click(chromedp.CSS(`input[name=scopes][value="vehicles:read"]`)))
	if got := submit(t, ctx, `form[aria-labelledby=new-key-title] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create key = %d", got)
	}
	key := text(t, ctx, "#new-key")
	if !strings.HasPrefix(key, patio.TestKeyPrefix) {
		t.Fatalf("key = %q; want %s…", key, patio.TestKeyPrefix)
	}
	if got := apiStatus(t, http.MethodGet, "/api/v1/vehicles", key); got != http.StatusOK {
		t.Errorf("GET /api/v1/vehicles with the new key = %d; want 200", got)
	}
	if got := apiStatus(t, http.MethodGet, "/api/v1/clients", key); got != http.StatusForbidden {
		t.Errorf("GET /api/v1/clients with a vehicles:read key = %d; want 403", got)
	}
	open(t, ctx, "/console/keys")
	if strings.Contains(pageText(t, ctx), key) {
		t.Errorf("the keys page shows the key again")
	}
	row := value(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main tbody tr")].find(r => r.innerText.includes("marketplace")).innerText`))
	if strings.Contains(row, "nunca") {
		t.Errorf("the key's row %q says never used; it was used", row)
	}
	// Revoking asks first, and asking changes nothing.
	if got := submit(t, ctx, `main tbody tr form[action$="/revoke"] button`); got != http.StatusOK || !strings.Contains(pageText(t, ctx), "marketplace") {
		t.Fatalf("revoke = %d; want the confirmation page naming the key", got)
	}
	if got := apiStatus(t, http.MethodGet, "/api/v1/vehicles", key); got != http.StatusOK {
		t.Errorf("GET /api/v1/vehicles with the key, its revocation asked but not confirmed = %d; want 200", got)
	}
	submit(t, ctx, `main .confirm button[type=submit]`)
	with(t, ctx, chromedp.WaitVisible(chromedp.CSS(".done")))
	waitFor(t, "the revoked key refused", 10*time.Second, func() bool {
		return apiStatus(t, http.MethodGet, "/api/v1/vehicles", key) == http.StatusUnauthorized
	})
}

// invite makes email a member of the team with role, and returns a session of theirs (a cookie),
// signed in through the browser.
func invite(t *testing.T, tm team, role patio.Role) (context.Context, string) {
	t.Helper()
	email := fmt.Sprintf("%s+%d@dealer.example", role, time.Now().UnixNano())
	if _, err := stack.Owner(context.Background(), tm.TeamID, email, "Member-Password-3!"); err != nil {
		t.Fatal(err)
	}
	// Owner made them an owner; give them their role, as an owner would in the console.
	members := patio.Members{Store: accountdb.NewMembers(stack.Store.DB()), Teams: accountdb.NewAccounts(stack.Store.DB()), Audit: stack.Store}
	if role != patio.RoleOwner {
		if _, err := members.ChangeRole(context.Background(), tm.TeamID, email, role); err != nil {
			t.Fatal(err)
		}
	}
	ctx := browser(t)
	if got := signIn(t, ctx, email, "Member-Password-3!"); got != http.StatusOK {
		t.Fatalf("%s sign in = %d", role, got)
	}
	return ctx, sessionCookie(t, ctx).Value
}

// TestRoles: a viewer sees no control that changes anything and a member none for webhooks or
// keys; the same forms posted by hand get 403 and change nothing.
func TestRoles(t *testing.T) {
	tm := newTeam(t)
	owner := browser(t)
	signIn(t, owner, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	id, _ := createWebhook(t, owner, r.url(), "*")

	viewer, viewerCookie := invite(t, tm, patio.RoleViewer)
	for _, p := range []string{"/console/", "/console/webhooks", "/console/webhooks/" + id, "/console/webhooks/" + id + "/deliveries",
		"/console/keys", "/console/team", "/console/audit"} {
		if got := open(t, viewer, p); got != http.StatusOK {
			t.Errorf("viewer GET %s = %d; want 200", p, got)
		}
		// The only forms a viewer sees: language, sign-out, and read-only filters (GET).
		n := count(t, viewer, `main form[method=post]`)
		if n != 0 {
			t.Errorf("viewer sees %d forms that change something on %s", n, p)
		}
		if enabled := count(t, viewer, `main input:not([disabled]):not([type=hidden]), main select:not([disabled])`); p == "/console/team" && enabled != 0 {
			t.Errorf("viewer sees %d enabled fields on the team page", enabled)
		}
	}
	if got := open(t, viewer, "/console/webhooks/new"); got != http.StatusForbidden {
		t.Errorf("viewer GET the new-webhook form = %d; want 403", got)
	}

	member, memberCookie := invite(t, tm, patio.RoleMember)
	if got := open(t, member, "/console/webhooks/"+id); got != http.StatusOK || count(t, member, "main form[method=post]") != 0 {
		t.Errorf("member sees webhook controls (status %d)", got)
	}
	if got := open(t, member, "/console/keys"); got != http.StatusForbidden {
		t.Errorf("member GET /console/keys = %d; want 403", got)
	}

	forged := []struct {
		path string
		form url.Values
	}{
		{"/console/webhooks", url.Values{"url": {r.url()}, "events": {"*"}, "form_token": {"forged-token-1"}}},
		{"/console/webhooks/" + id + "/disable", url.Values{}},
		{"/console/webhooks/" + id + "/delete", url.Values{}},
		{"/console/webhooks/" + id + "/rotate", url.Values{}},
		{"/console/keys", url.Values{"name": {"x"}, "scopes": {"vehicles:read"}, "form_token": {"forged-token-2"}}},
		{"/console/team/members", url.Values{"email": {"x@dealer.example"}, "role": {"owner"}, "form_token": {"forged-token-3"}}},
		{"/console/team/settings", url.Values{"name": {"Hacked"}, "email": {"x@dealer.example"}, "time_zone": {"UTC"}}},
	}
	for _, who := range []struct {
		role   string
		cookie string
	}{{"viewer", viewerCookie}, {"member", memberCookie}} {
		c := newClient(t, who.cookie)
		for _, f := range forged {
			f.form.Set("team", tm.TeamID)
			if resp, _ := c.post(f.path, f.form, nil); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s = %d; want 403", who.role, f.path, resp.StatusCode)
			}
		}
	}
	// Nothing changed.
	open(t, owner, "/console/webhooks/"+id)
	if s := text(t, owner, "dl.facts .badge"); s != "ativo" {
		t.Errorf("after the forged posts the webhook is %q; want ativo", s)
	}
	open(t, owner, "/console/webhooks")
	if n := count(t, owner, "main tbody tr"); n != 1 {
		t.Errorf("webhooks after the forged posts = %d; want 1", n)
	}
	open(t, owner, "/console/team")
	if strings.Contains(pageText(t, owner), "Hacked") || strings.Contains(pageText(t, owner), "x@dealer.example") {
		t.Errorf("the forged team posts changed the team")
	}
}

// TestFormSafety: a post from another origin, or for another team than the session's, is
// refused and changes nothing; a post with neither Origin nor Sec-Fetch-Site is judged by its
// session; every signed-in page carries the security headers.
func TestFormSafety(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	c := newClient(t, sessionCookie(t, ctx).Value)
	settings := func(name string) url.Values {
		return url.Values{"team": {tm.TeamID}, "name": {name}, "email": {tm.OwnerEmail}, "time_zone": {"America/Sao_Paulo"}}
	}
	if resp, _ := c.post("/console/team/settings", settings("Cross origin"), map[string]string{"Origin": "https://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a post from another origin = %d; want 403", resp.StatusCode)
	}
	if resp, _ := c.post("/console/team/settings", settings("Cross site"), map[string]string{"Sec-Fetch-Site": "cross-site"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site post = %d; want 403", resp.StatusCode)
	}
	other := settings("Other team")
	other.Set("team", newTeam(t).TeamID)
	if resp, _ := c.post("/console/team/settings", other, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("a post for another team = %d; want 409", resp.StatusCode)
	}
	open(t, ctx, "/console/team")
	if v := value(t, ctx, chromedp.Value(chromedp.ID("team-name"))); v != tm.name {
		t.Errorf("team name after the refused posts = %q; want %q", v, tm.name)
	}
	if resp, _ := c.post("/console/team/settings", settings("Renamed"), map[string]string{"Origin": ""}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a post without Origin or Sec-Fetch-Site = %d; want 303 (judged by its session)", resp.StatusCode)
	}

	resp, _ := c.get("/console/webhooks")
	for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q; want %q", h, got, want)
		}
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("Content-Security-Policy = %q; want frame-ancestors 'none' and scripts from the console's own files only", csp)
	}
	// The one script is the console's own file (copy buttons); no script is inline.
	if got := count(t, ctx, "script:not([src])"); got != 0 {
		t.Errorf("the page carries %d inline scripts; want none", got)
	}
}

// TestNotFound: unknown routes and other teams' records are 404 pages; a signed-out page goes to
// the login page and back after signing in.
func TestNotFound(t *testing.T) {
	tm, other := newTeam(t), newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, other.OwnerEmail, other.OwnerPassword)
	r := newReceiver(t, always(200))
	foreign, _ := createWebhook(t, ctx, r.url(), "*")

	ctx = browser(t)
	if got := open(t, ctx, "/console/webhooks?x=1"); got != http.StatusOK || !strings.Contains(location(ctx), "/console/login?next=") {
		t.Fatalf("a signed-out page went to %s (%d); want the login page", location(ctx), got)
	}
	with(t, ctx, chromedp.SendKeys(chromedp.ID("email"), tm.OwnerEmail), chromedp.SendKeys(chromedp.ID("password"), tm.OwnerPassword))
	submit(t, ctx, `main form button[type=submit]`)
	if !strings.HasSuffix(location(ctx), "/console/webhooks?x=1") {
		t.Errorf("after signing in the page is %s; want the one asked for", location(ctx))
	}
	for _, p := range []string{"/console/nope", "/console/webhooks/" + foreign, "/console/webhooks/" + foreign + "/deliveries",
		"/console/deliveries/dlv_0000", "/console/webhooks/not-an-id"} {
		if got := open(t, ctx, p); got != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", p, got)
		}
	}
	c := newClient(t, sessionCookie(t, ctx).Value)
	if resp, _ := c.post("/console/webhooks/"+foreign+"/disable", url.Values{"team": {tm.TeamID}}, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("disabling another team's webhook = %d; want 404", resp.StatusCode)
	}
}

// TestPlannedPathsStay404: the console adds no route to the public API: the planned webhook,
// activity and financial paths answer 404 on every method.
func TestPlannedPathsStay404(t *testing.T) {
	tm := newTeam(t)
	for _, p := range []string{"/api/v1/webhooks", "/api/v1/webhooks/" + tm.TeamID, "/api/v1/activities", "/api/v1/financial"} {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			if got := apiStatus(t, m, p, tm.Key); got != http.StatusNotFound {
				t.Errorf("%s %s = %d; want 404", m, p, got)
			}
		}
	}
}

// TestRoleChangeAppliesAtOnce: a role change and a removal apply to the person's next request,
// with no new sign-in; a team keeps its last owner.
func TestRoleChangeAppliesAtOnce(t *testing.T) {
	tm := newTeam(t)
	owner := browser(t)
	signIn(t, owner, tm.OwnerEmail, tm.OwnerPassword)
	admin, _ := invite(t, tm, patio.RoleAdmin)
	if got := open(t, admin, "/console/keys"); got != http.StatusOK || count(t, admin, `form[action$="/console/keys"]`) != 1 {
		t.Fatalf("the admin's keys page = %d without the new-key form", got)
	}
	openMenu(t, admin)
	adminEmail := strings.TrimSpace(strings.Split(text(t, admin, `header .tools a[href$="/account/password"]`), " ")[0])

	open(t, owner, "/console/team")
	with(t, owner, chromedp.SetValue(chromedp.CSS(`select[id="role-`+adminEmail+`"]`), "viewer"))
	if got := submit(t, owner, `form[action$="/members/`+adminEmail+`/role"] button`); got != http.StatusOK {
		t.Fatalf("change role = %d", got)
	}
	if got := open(t, admin, "/console/keys"); got != http.StatusOK || count(t, admin, `main form[method=post]`) != 0 {
		t.Errorf("after becoming a viewer, the keys page = %d with %d forms; want none", got, count(t, admin, `main form[method=post]`))
	}

	// The last owner can be neither demoted nor removed.
	ownerCookie := newClient(t, sessionCookie(t, owner).Value)
	resp, body := ownerCookie.post("/console/team/members/"+tm.OwnerEmail+"/role", url.Values{"team": {tm.TeamID}, "role": {"admin"}}, nil)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "pelo menos um proprietário") {
		t.Errorf("demoting the last owner = %d; want 422 saying a team keeps an owner", resp.StatusCode)
	}

	open(t, owner, "/console/team")
	if got := confirmed(t, owner, `form[action$="/members/`+adminEmail+`/remove"] button`); got != http.StatusOK {
		t.Fatalf("remove = %d", got)
	}
	if got := open(t, admin, "/console/webhooks"); got != http.StatusOK || !strings.Contains(location(admin), "/console/login") {
		t.Errorf("after removal the person's next page is %s (%d); want the login page", location(admin), got)
	}
}

// TestTeamSwitch: a person in two teams switches between them; the pages follow, and a form of the
// team left behind is refused.
func TestTeamSwitch(t *testing.T) {
	a, b := newTeam(t), newTeam(t)
	email := fmt.Sprintf("both+%d@dealer.example", time.Now().UnixNano())
	for _, tm := range []team{a, b} {
		if _, err := stack.Owner(context.Background(), tm.TeamID, email, "Both-Teams-Pass-1!"); err != nil {
			t.Fatal(err)
		}
	}
	ctx := browser(t)
	signIn(t, ctx, email, "Both-Teams-Pass-1!")
	first := value(t, ctx, chromedp.Value(chromedp.ID("switch-team")))
	other := b.TeamID
	if first == b.TeamID {
		other = a.TeamID
	}
	open(t, ctx, "/console/team")
	stale := value(t, ctx, chromedp.Value(chromedp.CSS(`form[action$="/team/settings"] input[name=team]`)))
	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-team"), other))
	if got := submit(t, ctx, `header form[action$="/console/team"] button`); got != http.StatusOK {
		t.Fatalf("switch = %d", got)
	}
	open(t, ctx, "/console/team")
	if got := value(t, ctx, chromedp.Value(chromedp.CSS(`form[action$="/team/settings"] input[name=team]`))); got != other {
		t.Errorf("after switching, the team page is team %s; want %s", got, other)
	}
	c := newClient(t, sessionCookie(t, ctx).Value)
	resp, _ := c.post("/console/team/settings", url.Values{"team": {stale}, "name": {"Renamed from a stale tab"},
		"email": {email}, "time_zone": {"UTC"}}, nil)
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("a form of the team left behind = %d; want 409", resp.StatusCode)
	}
}

// TestRemovedMovesToOtherTeam: a person removed from the team they work in, who still belongs to
// another team, lands on that other team at their next request, and stays there.
func TestRemovedMovesToOtherTeam(t *testing.T) {
	a := newTeam(t)
	bName := "Filial " + strings.ReplaceAll(t.Name(), "/", " ")
	b, err := stack.NewTeam(context.Background(), bName, fmt.Sprintf("owner-b+%d@dealer.example", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	email := fmt.Sprintf("both+%d@dealer.example", time.Now().UnixNano())
	for _, id := range []string{a.TeamID, b.TeamID} {
		if _, err := stack.Owner(context.Background(), id, email, "Both-Teams-Pass-1!"); err != nil {
			t.Fatal(err)
		}
	}
	person := browser(t)
	signIn(t, person, email, "Both-Teams-Pass-1!")
	if value(t, person, chromedp.Value(chromedp.ID("switch-team"))) != a.TeamID {
		with(t, person, chromedp.SetValue(chromedp.ID("switch-team"), a.TeamID))
		if got := submit(t, person, `header form[action$="/console/team"] button`); got != http.StatusOK {
			t.Fatalf("switch to team A = %d", got)
		}
	}
	if got := open(t, person, "/console/"); got != http.StatusOK || text(t, person, "header .team-name") != a.name {
		t.Fatalf("before removal the overview = %d in %q; want 200 in %q", got, text(t, person, "header .team-name"), a.name)
	}

	owner := browser(t)
	signIn(t, owner, a.OwnerEmail, a.OwnerPassword)
	open(t, owner, "/console/team")
	if got := confirmed(t, owner, `form[action$="/members/`+email+`/remove"] button`); got != http.StatusOK {
		t.Fatalf("remove = %d", got)
	}

	for i := 0; i < 2; i++ { // the next request, and the one after it (the session was saved)
		got := open(t, person, "/console/")
		if got != http.StatusOK || strings.Contains(location(person), "/console/login") {
			t.Fatalf("request %d after removal from team A = %d at %s; want 200 in team B (page: %.200q)", i+1, got, location(person), pageText(t, person))
		}
		if name := text(t, person, "header .team-name"); name != bName {
			t.Errorf("request %d after removal: the header names team %q; want %q", i+1, name, bName)
		}
	}
	open(t, person, "/console/team")
	if got := value(t, person, chromedp.Value(chromedp.CSS(`form[action$="/team/settings"] input[name=team]`))); got != b.TeamID {
		t.Errorf("after removal, the team page is team %s; want team B %s", got, b.TeamID)
	}
}
