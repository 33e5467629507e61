// Package consoletest drives the console in a real browser (Debian's Chromium, through chromedp)
// against the local stack: DynamoDB Local, moto's Cognito, SES and SQS, the API, the console and
// the webhook workers, all started in this test binary (dev/localstack). It checks what a person at
// a dealership would notice: signing in, invitations, webhooks and their deliveries at an HTTPS
// receiver, API keys, roles, refused forms, both languages, and an axe-core scan of every screen.
//
// Without Chromium or axe-core (`make test` installs both) the tests are skipped, and fail under
// CI=true.
package consoletest

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/dev/testenv"
)

// The webhook knobs of these tests: a compressed retry schedule (six attempts within seconds), a
// short receiver timeout, and receivers on loopback with the test certificate.
const (
	testSchedule = "0s,500ms,500ms,500ms,500ms,500ms"
	testTimeout  = "2s"
)

var (
	stackOnce sync.Once
	stack     *localstack.Stack
	stackErr  error
)

// startStack starts, once per test binary, the local stack on fresh tables: the API and the console
// on free loopback ports, and the webhook workers.
func startStack(t *testing.T) *localstack.Stack {
	t.Helper()
	tables := testenv.Tables(t)
	requireMoto(t)
	stackOnce.Do(func() {
		probe := httptest.NewTLSServer(http.NotFoundHandler())
		pemFile := filepath.Join(os.TempDir(), fmt.Sprintf("patio-console-ca-%d.pem", os.Getpid()))
		stackErr = os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: probe.Certificate().Raw}), 0o600)
		probe.Close()
		if stackErr != nil {
			return
		}
		for k, v := range map[string]string{"WEBHOOK_RETRY_SCHEDULE": testSchedule, "WEBHOOK_TIMEOUT": testTimeout,
			"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_CA_FILE": pemFile, "WEBHOOK_SWEEP_AFTER": "20s"} {
			os.Setenv(k, v)
		}
		logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
		if testing.Verbose() {
			logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
		stack, stackErr = localstack.Start(context.Background(), localstack.Options{Tables: tables,
			APIAddr: "127.0.0.1:0", ConsoleAddr: "127.0.0.1:0", Logger: logger})
	})
	if stackErr != nil {
		t.Fatalf("local stack: %v", stackErr)
	}
	return stack
}

func requireMoto(t *testing.T) {
	t.Helper()
	if os.Getenv("AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER") == "" {
		unavailable(t, "moto (AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER) is not set; run under `go run ./cmd/local with-engines -- go test ...`")
	}
}

// unavailable skips the test, or fails it under CI=true.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// team is a team of the test with its owner's sign-in.
type team struct {
	localstack.Creds
	name string
}

// newTeam creates a team whose owner signs in with a password of their own.
func newTeam(t *testing.T) team {
	t.Helper()
	s := startStack(t)
	ctx := context.Background()
	name := "Concessionária " + strings.ReplaceAll(t.Name(), "/", " ")
	email := fmt.Sprintf("owner+%d@dealer.example", time.Now().UnixNano())
	c, err := s.NewTeam(ctx, name, email)
	if err != nil {
		t.Fatal(err)
	}
	c.OwnerEmail = email
	if c.OwnerPassword, err = s.Owner(ctx, c.TeamID, email, "Owner-Password-1!"); err != nil {
		t.Fatal(err)
	}
	return team{Creds: c, name: name}
}

// consoleURL returns the console's URL of path ("/console/webhooks").
func consoleURL(path string) string { return stack.ConsoleURL + path }

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
)

// chromiumPath finds Debian's Chromium (or the one CHROMIUM names).
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser returns a fresh browser session of its own (its own cookies), in a tab of the test
// binary's headless Chromium.
func browser(t *testing.T) context.Context {
	t.Helper()
	startStack(t)
	path := chromiumPath()
	if path == "" {
		unavailable(t, "Chromium is not installed (`make test` installs Debian's chromium package)")
	}
	browserOnce.Do(func() {
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1280, 900),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
			// Back loads the page again from the console, as a browser does when it has not kept
			// it (the console's pages are no-store): the tests' Back is that case, the one that
			// sends a form's token again.
			chromedp.Flag("disable-features", "BackForwardCache"),
			// A Brazilian dealership's browser: the console answers in its default language.
			chromedp.Flag("lang", "pt-BR"), chromedp.Flag("accept-lang", "pt-BR,pt"),
		}
		alloc, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, _ = chromedp.NewContext(alloc)
		browserErr = chromedp.Do(browserCtx) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("start Chromium: %v", browserErr)
	}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// with runs the steps with a time limit, failing the test on an error.
func with(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("browser: %v (page: %s)", err, location(ctx))
	}
}

// value runs one action that returns a value, failing the test on an error.
func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("browser: %v (page: %s)", err, location(ctx))
	}
	return v
}

func location(ctx context.Context) string {
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	u, _ := chromedp.Run(c, chromedp.Location())
	return u
}

// open navigates to a console path and returns the answer's status.
func open(t *testing.T, ctx context.Context, path string) int64 {
	t.Helper()
	resp := value(t, ctx, chromedp.NavigateResponse(consoleURL(path)))
	return resp.Status
}

// submit clicks a form's button and waits for the page it leads to, returning its status.
func submit(t *testing.T, ctx context.Context, button string) int64 {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// A button in a closed menu (the header's <details>) is reached by opening it first, as a
	// person does.
	openMenus := fmt.Sprintf(`for (let d = document.querySelector(%q)?.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true; true`, button)
	if _, err := chromedp.Run(c, chromedp.Evaluate[bool](openMenus)); err != nil {
		t.Fatalf("open the menu of %s: %v", button, err)
	}
	resp, err := chromedp.RunResponse(c, chromedp.Click(chromedp.CSS(button)))
	if err != nil {
		t.Fatalf("submit %s: %v (page: %s)", button, err, location(ctx))
	}
	return resp.Status
}

// openMenu opens the header's menu (team, language, account), as a person does to read it.
func openMenu(t *testing.T, ctx context.Context) {
	t.Helper()
	value(t, ctx, chromedp.Evaluate[bool](`document.querySelectorAll("header details").forEach(d => d.open = true); true`))
}

// confirmed submits a destructive action's button, checks that its confirmation page came (200,
// saying what will happen) and confirms it; it returns the status of the confirmed post.
func confirmed(t *testing.T, ctx context.Context, button string) int64 {
	t.Helper()
	if got := submit(t, ctx, button); got != http.StatusOK || count(t, ctx, "main .confirm form") != 1 {
		t.Fatalf("submit %s = %d at %s; want the confirmation page (200)", button, got, location(ctx))
	}
	return submit(t, ctx, `main .confirm button[type=submit]`)
}

// text returns the text of the first element that matches a CSS selector.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return strings.TrimSpace(value(t, ctx, chromedp.Text(chromedp.CSS(sel))))
}

// page returns the page's whole text.
func pageText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return value(t, ctx, chromedp.Evaluate[string](`document.body.innerText`))
}

// count returns how many elements match a CSS selector.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	return value(t, ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
}

// signIn signs in through the login page.
func signIn(t *testing.T, ctx context.Context, email, password string) int64 {
	t.Helper()
	open(t, ctx, "/console/login")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), password))
	return submit(t, ctx, `main form button[type=submit]`)
}

// sessionCookie returns the browser's console session cookie.
func sessionCookie(t *testing.T, ctx context.Context) *network.Cookie {
	t.Helper()
	res := value(t, ctx, func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
		return chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{stack.ConsoleURL + "/console/"}})
	})
	for _, c := range res.Cookies {
		if c.Name == "patio_session" {
			return c
		}
	}
	t.Fatalf("no session cookie; cookies %v", res.Cookies)
	return nil
}

// client is a plain HTTP client of the console (no browser): for forged posts.
type client struct {
	t      *testing.T
	jar    *cookiejar.Jar
	http   *http.Client
	origin string
}

// newClient returns a client carrying a session cookie value (may be "").
func newClient(t *testing.T, session string) *client {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(stack.ConsoleURL)
	if session != "" {
		jar.SetCookies(u, []*http.Cookie{{Name: "patio_session", Value: session, Path: "/console/"}})
	}
	return &client{t: t, jar: jar, origin: stack.ConsoleURL, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get fetches a console page.
func (c *client) get(path string) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.http.Get(consoleURL(path))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// post posts a form with the given headers ("Origin" set to the console's own unless given).
func (c *client) post(path string, form url.Values, headers map[string]string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, consoleURL(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.origin)
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// hidden returns the value of the first hidden input named name in an HTML page.
func hidden(page, name string) string {
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `" value="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return htmlUnescape(m[1])
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}

// searchLag is how long a test waits for a list the indexer keeps (q, a vehicle's brand, a
// record's deals) to show what it just wrote: the local stack's indexer follows the streams
// within about a second, and far sooner on a quiet machine; a loaded one (the whole suite at
// once) is given room.
const searchLag = 30 * time.Second

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// repoRoot is the repository's root, where .tools/ is.
func repoRoot(t *testing.T) string {
	t.Helper()
	path, err := samtemplate.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(path)
}
