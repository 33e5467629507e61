package consoletest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSource returns axe-core's script (the npm package `make test` installs into .tools/browser).
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AXE_CORE_JS")
	if path == "" {
		path = filepath.Join(repoRoot(t), ".tools", "browser", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		unavailable(t, "axe-core is not installed (`make test` installs it into .tools/browser): "+err.Error())
	}
	return string(b)
}

// violation is one axe-core finding.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// scan runs axe-core on the page and returns its serious and critical violations.
func scan(t *testing.T, ctx context.Context, axe string) []violation {
	t.Helper()
	// The page's policy allows no script: the scan runs as DevTools runs its own scripts.
	with(t, ctx, chromedp.Evaluate[chromedp.Void](axe))
	raw := value(t, ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.map(n => n.target.join(" "))}))))`, chromedp.EvalAwaitPromise))
	var all, bad []violation
	if err := json.Unmarshal([]byte(raw), &all); err != nil {
		t.Fatalf("axe result: %v", err)
	}
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, v)
		}
	}
	return bad
}

// overflowCheck lists what of the page a person would have to scroll sideways to reach: the page
// wider than the window, a part of it (a table, the header's menu) that scrolls sideways within
// it, a section of the header's menu outside the window. A <pre> (a payload as sent, a receiver's
// answer) may scroll: its lines are the bytes as they were.
const overflowCheck = `(() => {
  // A phone's browser may zoom out to show a wide page whole (innerWidth grows with it): the
  // window is the narrower of the two.
  const doc = document.documentElement, out = [], w = Math.min(window.innerWidth, doc.clientWidth);
  const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
  if (doc.scrollWidth > w) {
    // The innermost elements past the window's edge, not clipped by a box of their own: what
    // widens the page.
    const clipped = e => { for (let a = e.parentElement; a && a !== doc; a = a.parentElement) if (getComputedStyle(a).overflowX !== "visible") return true; return false };
    const past = e => e.getBoundingClientRect().right > w + 0.5 && !clipped(e);
    const culprits = [...document.querySelectorAll("body *")].filter(e => past(e) && ![...e.children].some(past)).slice(0, 3).map(name);
    out.push("the page is " + doc.scrollWidth + " px wide in a window of " + w + " (" + culprits.join(", ") + ")");
  }
  document.querySelectorAll("body *").forEach(e => {
    if (e.closest("pre")) return;
    const ox = getComputedStyle(e).overflowX;
    if ((ox === "auto" || ox === "scroll") && e.scrollWidth > e.clientWidth + 1)
      out.push(name(e) + " scrolls sideways: " + e.scrollWidth + " px in " + e.clientWidth);
  });
  document.querySelectorAll("nav.main a").forEach(a => {
    const r = a.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.right > w) out.push("the menu's " + JSON.stringify(a.textContent.trim()) + " is outside the window (" + Math.round(r.left) + " to " + Math.round(r.right) + " px)");
  });
  return out })()`

// overflows returns what of the page overflows the window sideways (overflowCheck).
func overflows(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return value(t, ctx, chromedp.Evaluate[[]string](overflowCheck))
}

// screen is one console screen: how to reach it, and the status it answers.
type screen struct {
	name   string
	reach  func(t *testing.T, ctx context.Context) int64
	status int64
}

// readableText is the page's text a person reads as prose: without what it shows as code (ids,
// event types, payloads, URLs in <code>), form values and the team's own data.
const readableText = `(() => { const b = document.body.cloneNode(true);
  b.querySelectorAll("code, pre, input, textarea, select, [data-raw], .team-name").forEach(e => e.remove());
  return b.innerText })()`

// leaks are what must not reach a page in Portuguese: a catalog key left untranslated, a JSON field
// name where its label belongs, the domain's English.
var leaks = []*regexp.Regexp{
	regexp.MustCompile(`\b(action|audit|clients|confirm|deliveries|delivery|done|error|field|filter|financial|history|links|nav|pipeline|replay|stock|team|webhooks?|activities|activity|deal|vehicle|client|payment|summary|list|role|actor|resource|errorclass|lang)\.[a-z_]+\b`),
	regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`),
	regexp.MustCompile(`\b(must be|must have|is required|not found|cannot be|must not|is not valid)\b`),
}

// untranslated returns what of text a Portuguese page must not show.
func untranslated(text string) []string {
	var out []string
	for _, re := range leaks {
		out = append(out, re.FindAllString(text, -1)...)
	}
	return out
}

// TestEveryScreen visits every screen of the console in both languages, as a signed-in owner (and
// signed out for the sign-in page): each answers in the chosen language, and at 1280 px and at
// phones' 390 and 360 px nothing of it overflows the window sideways (overflowCheck: the page no
// wider than the window, no table or menu scrolling sideways, every section of the header's menu
// in view), axe-core finds no serious or critical violation and the screen is captured as a PNG
// (into PATIO_SCREENSHOTS when set, as `make screenshots` does; into the test's temporary folder
// otherwise).
func TestEveryScreen(t *testing.T) {
	axe := axeSource(t)
	tm := newTeam(t)
	ctx := browser(t)
	out := os.Getenv("PATIO_SCREENSHOTS")
	if out == "" {
		out = t.TempDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newReceiver(t, func(n int) int {
		if n == 1 {
			return 500
		}
		return 200
	})

	var webhookID, deliveryID, vehicleID, clientID, dealID string
	var choiceMade bool
	var staleEdits int
	path := func(p string) func(t *testing.T, ctx context.Context) int64 {
		return func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, p) }
	}
	screens := []screen{
		{"login", func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, "/console/login") }, 200},
		{"new-password", func(t *testing.T, ctx context.Context) int64 {
			email := "screens+" + time.Now().Format("150405.000000") + "@dealer.example"
			if err := stack.Directory.ResetUser(context.Background(), email, "Temporary-Pass-1!"); err != nil {
				t.Fatal(err)
			}
			return signIn(t, ctx, email, "Temporary-Pass-1!")
		}, 200},
		{"overview", path("/console/"), 200},
		{"stock", func(t *testing.T, ctx context.Context) int64 {
			if vehicleID == "" { // once: the second language finds it
				vehicleID = createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990,"plate":"RIO2A26","model_year":2024}`)
			}
			return open(t, ctx, "/console/vehicles")
		}, 200},
		{"stock-refused", path("/console/vehicles?price_min=abc"), 400},
		{"vehicle-new", path("/console/vehicles/new"), 200},
		{"vehicle-new-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/vehicles/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Argo"),
				chromedp.SendKeys(chromedp.ID("plate"), "RIO2A26"), chromedp.SendKeys(chromedp.ID("price"), "abc"))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 422},
		{"vehicle", func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, "/console/vehicles/"+vehicleID) }, 200},
		{"vehicle-edit-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/vehicles/"+vehicleID)
			with(t, ctx, chromedp.SetValue(chromedp.ID("price"), "abc"))
			return submit(t, ctx, `form[action$="/vehicles/`+vehicleID+`"] button[type=submit]`)
		}, 422},
		{"vehicle-edit-stale", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/vehicles/"+vehicleID)
			staleEdits++ // someone else changes the price after the page was loaded
			apiSend(t, tm.Key, http.MethodPut, "/api/v1/vehicles/"+vehicleID, `{"price":`+strconv.Itoa(79990+staleEdits)+`}`, http.StatusOK)
			with(t, ctx, chromedp.SetValue(chromedp.ID("mileage_km"), "12000"))
			return submit(t, ctx, `form[action$="/vehicles/`+vehicleID+`"] button[type=submit]`)
		}, 409},
		{"clients", func(t *testing.T, ctx context.Context) int64 {
			if clientID == "" {
				clientID = createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
				dealID = createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+clientID+`","vehicle_id":"`+vehicleID+`"}`)
			}
			return open(t, ctx, "/console/clients")
		}, 200},
		{"client", func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, "/console/clients/"+clientID) }, 200},
		{"client-new", path("/console/clients/new"), 200},
		{"client-new-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/clients/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("name"), "Maria"), chromedp.SendKeys(chromedp.ID("cpf"), "111.111.111-11"))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 422},
		{"pipeline", path("/console/deals"), 200},
		{"pipeline-list", path("/console/deals?view=list"), 200},
		{"deal-new", path("/console/deals/new"), 200},
		{"deal", func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, "/console/deals/"+dealID) }, 200},
		{"confirm-win", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/deals/"+dealID)
			return submit(t, ctx, `form[action$="/win"] button[type=submit]`)
		}, 200},
		{"deal-lose-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/deals/"+dealID)
			return submit(t, ctx, `form[action$="/lose"] button[type=submit]`)
		}, 422},
		{"deal-client-choice", func(t *testing.T, ctx context.Context) int64 {
			if !choiceMade { // a second Maria, of a long name, makes "Maria" a choice between two
				createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria Aparecida dos Santos Albuquerque Cavalcanti de Oliveira","cpf":"39053344705"}`)
				choiceMade = true
			}
			var st int64
			waitFor(t, "the choice between the two clients", searchLag, func() bool {
				open(t, ctx, "/console/deals/new")
				with(t, ctx, chromedp.SendKeys(chromedp.ID("title"), "Argo"), chromedp.SendKeys(chromedp.ID("link-client"), "Maria"))
				st = submit(t, ctx, `main form button[type=submit]`)
				return count(t, ctx, "#link-client-choice option") == 2
			})
			return st
		}, 422},
		{"webhooks", path("/console/webhooks"), 200},
		{"webhook-new", path("/console/webhooks/new"), 200},
		{"webhook-new-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("url"), "http://not-https.example"))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 422},
		{"webhook-secret", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("url"), r.url()), chromedp.Click(chromedp.CSS(`input[name=events][value="*"]`)))
			st := submit(t, ctx, `main form button[type=submit]`)
			href := value(t, ctx, chromedp.AttributeValue(chromedp.CSS("main a.button"), "href"))
			webhookID = href.Value[strings.LastIndex(href.Value, "/")+1:]
			return st
		}, 200},
		{"webhook", func(t *testing.T, ctx context.Context) int64 { return open(t, ctx, "/console/webhooks/"+webhookID) }, 200},
		{"confirm-rotate", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/"+webhookID)
			return submit(t, ctx, `form[action$="/rotate"] button`)
		}, 200},
		{"webhook-rotated", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/"+webhookID)
			return confirmed(t, ctx, `form[action$="/rotate"] button`)
		}, 200},
		{"delivery", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/"+webhookID)
			submit(t, ctx, `form[action$="/test"] button`)
			deliveryID = location(ctx)[strings.LastIndex(location(ctx), "/")+1:]
			deliveryID, _, _ = strings.Cut(deliveryID, "?")
			waitFor(t, "the test's attempt", 15*time.Second, func() bool {
				open(t, ctx, "/console/deliveries/"+deliveryID)
				return count(t, ctx, "main table tbody tr") == 1
			})
			return open(t, ctx, "/console/deliveries/"+deliveryID)
		}, 200},
		{"deliveries", func(t *testing.T, ctx context.Context) int64 {
			return open(t, ctx, "/console/webhooks/"+webhookID+"/deliveries")
		}, 200},
		{"delivery-log", path("/console/deliveries"), 200},
		{"replay-confirm", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/webhooks/"+webhookID+"/deliveries")
			with(t, ctx, chromedp.Click(chromedp.CSS(`form[action$="/replay"] input[value=failed]`)))
			return submit(t, ctx, `form[action$="/replay"] button`)
		}, 200},
		{"keys", path("/console/keys"), 200},
		{"key-created", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/keys")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("name"), "crm"), chromedp.Click(chromedp.CSS(`input[name=scopes][value="deals:read"]`)))
			return submit(t, ctx, `form[aria-labelledby=new-key-title] button[type=submit]`)
		}, 200},
		{"team", path("/console/team"), 200},
		{"confirm-member-remove", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/team")
			return submit(t, ctx, `form[action$="/remove"] button`)
		}, 200},
		{"activity-new", path("/console/activities/new"), 200},
		{"activity-new-refused", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/activities/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("title"), "Revisão"), chromedp.SendKeys(chromedp.ID("link-vehicle"), "ZZZ9Z99"))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 422},
		{"activity-link-choice", func(t *testing.T, ctx context.Context) int64 {
			// The two Marias of deal-client-choice: the link's choice among them.
			open(t, ctx, "/console/activities/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("title"), "Ligar"), chromedp.SendKeys(chromedp.ID("link-client"), "Maria"))
			st := submit(t, ctx, `main form button[type=submit]`)
			if n := count(t, ctx, "#link-client-choice option"); n != 2 {
				t.Errorf("the activity's client choice offers %d clients; want 2", n)
			}
			return st
		}, 422},
		{"activity", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/activities/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("title"), "Visita ao showroom"),
				chromedp.SetValue(chromedp.ID("due_at"), time.Now().Add(-time.Hour).In(sao).Format("2006-01-02T15:04")))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 200},
		{"activities", path("/console/activities"), 200},
		{"activities-overdue", path("/console/activities?overdue=1"), 200},
		{"financial-new", path("/console/financial/new"), 200},
		{"financial-record", func(t *testing.T, ctx context.Context) int64 {
			open(t, ctx, "/console/financial/new")
			with(t, ctx, chromedp.SendKeys(chromedp.ID("description"), "Comissão do Argo"), chromedp.SendKeys(chromedp.ID("amount"), "1500"))
			return submit(t, ctx, `main form button[type=submit]`)
		}, 200},
		{"financial", path("/console/financial"), 200},
		{"financial-overdue", path("/console/financial?overdue=1"), 200},
		{"financial-summary", path("/console/financial/summary"), 200},
		{"audit", path("/console/audit"), 200},
		{"password", path("/console/account/password"), 200},
		{"not-found", path("/console/nowhere"), 404},
	}
	signedOut := map[string]bool{"login": true, "new-password": true}
	for _, lang := range []string{"pt-BR", "en"} {
		// The language switch (a form on every page), then the sign-in.
		ctx = browser(t)
		open(t, ctx, "/console/login")
		with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), lang))
		submit(t, ctx, `header form[action$="/console/language"] button`)
		for _, s := range screens {
			if !signedOut[s.name] && count(t, ctx, `header form[action$="/console/logout"]`) == 0 {
				if got := signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword); got != http.StatusOK {
					t.Fatalf("sign in = %d", got)
				}
			}
			t.Run(lang+"/"+s.name, func(t *testing.T) {
				if got := s.reach(t, ctx); got != s.status {
					t.Errorf("%s = %d; want %d", s.name, got, s.status)
				}
				if got := value(t, ctx, chromedp.Evaluate[string](`document.documentElement.lang`)); got != lang {
					t.Errorf("%s is in %q; want %q", s.name, got, lang)
				}
				if lang == "pt-BR" {
					for _, leak := range untranslated(value(t, ctx, chromedp.Evaluate[string](readableText))) {
						t.Errorf("%s in pt-BR shows %q: a catalog key, a JSON field name or an English message", s.name, leak)
					}
				}
				// At the desktop's 1280 px, then at phones' 390 and 360 px (the same page laid out
				// again).
				for _, width := range []int64{1280, 390, 360} {
					file := lang + "-" + s.name + ".png"
					with(t, ctx, chromedp.EmulateViewport(1280, 900))
					if width < 1280 {
						with(t, ctx, chromedp.EmulateViewport(width, 800, chromedp.EmulateMobile))
						file = fmt.Sprintf("%s-%s-%d.png", lang, s.name, width)
					}
					for _, p := range overflows(t, ctx) {
						t.Errorf("%s at %d px: %s", s.name, width, p)
					}
					for _, v := range scan(t, ctx, axe) {
						t.Errorf("%s at %d px: axe %s (%s): %s at %v", s.name, width, v.ID, v.Impact, v.Help, v.Nodes)
					}
					png := value(t, ctx, chromedp.FullScreenshot(100))
					if len(png) < 1000 {
						t.Errorf("%s at %d px: screenshot of %d bytes", s.name, width, len(png))
					}
					if err := os.WriteFile(filepath.Join(out, file), png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				with(t, ctx, chromedp.EmulateReset())
			})
			if s.name == "new-password" {
				ctx = browser(t) // a fresh session for the owner
				open(t, ctx, "/console/login")
				with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), lang))
				submit(t, ctx, `header form[action$="/console/language"] button`)
			}
		}
	}
	if h := text(t, ctx, "h1"); h != "Page not found" {
		t.Errorf("the English 404 page says %q", h)
	}
}
