package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/docblocks"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/webhooksig"
)

// sigCase is one delivery a recipe must accept or refuse, as the harnesses read it.
type sigCase struct {
	Name    string            `json:"name"`
	Secret  string            `json:"secret"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
	Now     float64           `json:"now"` // Unix seconds; 0: the recipe's own clock
	Want    bool              `json:"want"`
	// Library marks the cases a Standard Webhooks library must decide the same way (whole
	// Standard Webhooks headers, the real clock).
	Library bool `json:"library"`
}

// docRecipe is a signature recipe as the docs print it.
type docRecipe struct {
	where string // file:line
	lang  string // python, js, go
	code  string
}

// TestSignatureRecipes runs every signature recipe of README.md and docs/webhooks.md (Python,
// Node.js, and the Go handler around shared/webhooksig), exactly as printed, against real
// deliveries of the pipeline made during a rotation's grace period: after one rotation (two
// secrets signing) and after a second one within the first's grace (three secrets). Each recipe
// must accept every secret still signing, refuse another secret, a tampered body, a missing, stale
// or malformed timestamp, and never throw. When the Makefile installed them (`make webhook-tools`),
// Standard Webhooks' own libraries (npm and PyPI) must accept the same deliveries.
func TestSignatureRecipes(t *testing.T) {
	requireRuntime(t, "python3")
	requireRuntime(t, "node")
	root := repoRoot(t)
	recipes := readRecipes(t, root)
	cases := rotationDeliveries(t)

	for _, c := range cases {
		if got := webhooksig.Verify(c.Secret, header(c.Headers), c.Body, clock(c.Now)) == nil; got != c.Want {
			t.Errorf("webhooksig.Verify, %s: %v; want %v", c.Name, got, c.Want)
		}
	}
	for _, r := range recipes {
		t.Run(r.lang+" "+r.where, func(t *testing.T) {
			results := runRecipe(t, root, r, cases)
			for i, c := range cases {
				switch got := results[i].(type) {
				case bool:
					if got != c.Want {
						t.Errorf("%s: %v; want %v", c.Name, got, c.Want)
					}
				case string:
					if !strings.HasPrefix(got, "skipped") {
						t.Errorf("%s: %s", c.Name, got)
					}
				default:
					t.Errorf("%s: the harness printed %v", c.Name, got)
				}
			}
		})
	}
	t.Run("standardwebhooks libraries", func(t *testing.T) {
		verifyWithLibraries(t, root, cases)
	})
}

// requireRuntime skips the test without a language runtime, or fails it under CI=true.
func requireRuntime(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s is not installed: %v", name, err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	tpl, err := samtemplate.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(tpl)
}

// readRecipes returns the recipes of README.md (Python) and docs/webhooks.md (Go, Node.js,
// Python): the blocks that define verify, or the Go handler.
func readRecipes(t *testing.T, root string) []docRecipe {
	t.Helper()
	var out []docRecipe
	count := map[string]int{}
	for _, file := range []string{"README.md", "docs/webhooks.md"} {
		blocks, err := docblocks.Read(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			marker := map[string]string{"python": "def verify(", "js": "function verify(", "go": "func handle("}[b.Lang]
			if marker == "" || !strings.Contains(b.Code, marker) {
				continue
			}
			out = append(out, docRecipe{where: fmt.Sprintf("%s:%d", file, b.Line), lang: b.Lang, code: b.Code})
			count[file+" "+b.Lang]++
		}
	}
	for _, want := range []string{"README.md python", "docs/webhooks.md python", "docs/webhooks.md js", "docs/webhooks.md go"} {
		if count[want] != 1 {
			t.Errorf("%s: %d signature recipes; want 1 (a block defining verify, or the Go handle)", want, count[want])
		}
	}
	return out
}

// rotationDeliveries makes real deliveries during rotations' grace periods and returns the cases
// built from them.
func rotationDeliveries(t *testing.T) []sigCase {
	t.Helper()
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, always(200)) // checks X-Service-Signature with the oldest secret
	hook := p.hook(t, team, recv, webhook.VehicleCreated)
	recv.mu.Lock()
	first := recv.secret
	recv.mu.Unlock()
	vehicles := patio.NewVehicles(p.store.Vehicles())

	_, second := check2[webhook.Webhook, string](t)(p.admin.RotateSecret(ctx, hook.ID, time.Hour))
	check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, `{"brand":"BYD","model":"Dolphin","price":150000}`)))
	waitFor(t, "the delivery after one rotation", 15*time.Second, func() bool { return len(recv.snapshot()) == 1 })
	_, third := check2[webhook.Webhook, string](t)(p.admin.RotateSecret(ctx, hook.ID, 2*time.Hour))
	check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, `{"brand":"BYD","model":"Seal","price":250000}`)))
	waitFor(t, "the delivery after two rotations", 15*time.Second, func() bool { return len(recv.snapshot()) == 2 })
	got := recv.snapshot()

	var cases []sigCase
	add := func(name, secret string, h http.Header, body []byte, now float64, want, library bool) {
		m := map[string]string{}
		for k := range h {
			m[k] = h.Get(k)
		}
		cases = append(cases, sigCase{Name: name, Secret: secret, Headers: m, Body: body, Now: now, Want: want, Library: library})
	}
	const other = "whsec_c29tZW9uZSBlbHNlJ3Mgc2VjcmV0IQ=="
	for i, d := range []struct {
		secrets []string
	}{{[]string{first, second}}, {[]string{first, second, third}}} {
		g := got[i]
		ts, _ := strconv.ParseInt(g.header.Get("X-Service-Timestamp"), 10, 64)
		at := fmt.Sprintf("delivery %d (%d secrets signing)", i+1, len(d.secrets))
		for j, s := range d.secrets {
			add(fmt.Sprintf("%s, secret %d", at, j+1), s, g.header, g.body, 0, true, true)
			add(fmt.Sprintf("%s, secret %d, 299 s later", at, j+1), s, g.header, g.body, float64(ts+299), true, false)
			add(fmt.Sprintf("%s, secret %d, 301 s later", at, j+1), s, g.header, g.body, float64(ts+301), false, false)
			std := g.header.Clone()
			for _, h := range []string{"X-Service-Signature", "X-Service-Signature-Next", "X-Service-Timestamp"} {
				std.Del(h)
			}
			add(fmt.Sprintf("%s, secret %d, Standard Webhooks headers only", at, j+1), s, std, g.body, 0, true, true)
			service := g.header.Clone()
			service.Del("webhook-signature")
			// Without webhook-signature only the oldest and the newest secret verify.
			add(fmt.Sprintf("%s, secret %d, X-Service headers only", at, j+1), s, service, g.body, 0,
				j == 0 || j == len(d.secrets)-1, false)
		}
		add(at+", another secret", other, g.header, g.body, 0, false, true)
		add(at+", a tampered body", first, g.header, append(bytes.Clone(g.body), ' '), 0, false, true)
		noTime := g.header.Clone()
		noTime.Del("X-Service-Timestamp")
		noTime.Del("webhook-timestamp")
		add(at+", no timestamp headers", first, noTime, g.body, 0, false, false)
		badTime := g.header.Clone()
		badTime.Set("X-Service-Timestamp", g.header.Get("X-Service-Timestamp")+"a")
		badTime.Set("webhook-timestamp", "²")
		add(at+", timestamps not numbers", first, badTime, g.body, 0, false, false)
	}
	return cases
}

func header(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func clock(now float64) time.Time {
	if now == 0 {
		return time.Now()
	}
	return time.Unix(int64(now), 0)
}

// The harnesses call a recipe once per case and print a JSON array: true or false, or the text of
// an exception (a recipe must never throw).
const (
	pythonHarness = `import base64, json, sys
ns = {}
exec(open(sys.argv[1], encoding="utf-8").read(), ns)
verify = ns["verify"]

class Headers:  # looked up whatever the case, as web frameworks do
    def __init__(self, h): self.h = {k.lower(): v for k, v in h.items()}
    def get(self, name, default=None): return self.h.get(name.lower(), default)

out = []
for c in json.load(sys.stdin):
    try:
        args = [c["secret"], Headers(c["headers"]), base64.b64decode(c["body"])]
        out.append(verify(*args, c["now"]) if c["now"] else verify(*args))
    except Exception as e:
        out.append(f"{type(e).__name__}: {e}")
print(json.dumps(out))
`
	nodeHarness = `import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { verify } = await import(pathToFileURL(process.argv[2]).href);
const out = JSON.parse(readFileSync(0, "utf8")).map((c) => {
  try {
    const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const body = Buffer.from(c.body, "base64");
    return c.now ? verify(c.secret, headers, body, c.now) : verify(c.secret, headers, body);
  } catch (e) {
    return String(e);
  }
});
console.log(JSON.stringify(out));
`
	goHarness = `package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
)

func main() {
	var cases []struct {
		Secret  string
		Headers map[string]string
		Body    []byte
		Now     float64
	}
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([]any, len(cases))
	for i, c := range cases {
		if c.Now != 0 {
			out[i] = "skipped: the handler reads the clock"
			continue
		}
		os.Setenv("PATIO_WEBHOOK_SECRET", c.Secret)
		req := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(c.Body))
		for k, v := range c.Headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		handle(rec, req)
		out[i] = rec.Code == http.StatusOK
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}
`
)

// runRecipe runs one recipe over the cases and returns what it decided for each.
func runRecipe(t *testing.T, root string, r docRecipe, cases []sigCase) []any {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var cmd *exec.Cmd
	switch r.lang {
	case "python":
		cmd = exec.Command("python3", write("harness.py", pythonHarness), write("recipe.py", r.code))
	case "js":
		cmd = exec.Command("node", write("harness.mjs", nodeHarness), write("recipe.mjs", r.code))
	case "go":
		// The handler and the harness become a package of this module (an overlay: nothing is
		// written into the repository), so the handler imports shared/webhooksig as a user's would.
		pkg := filepath.Join(root, "dev", "docrecipe")
		overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
			filepath.Join(pkg, "handler.go"): write("handler.go", "package main\n\n"+r.code),
			filepath.Join(pkg, "main.go"):    write("main.go", goHarness),
		}})
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("go", "run", "-overlay", write("overlay.json", string(overlay)), "./dev/docrecipe")
		cmd.Dir = root
	default:
		t.Fatalf("no harness for %s", r.lang)
	}
	return runHarness(t, cmd, cases)
}

// runHarness feeds the cases to a harness and decodes its answer, one entry per case.
func runHarness(t *testing.T, cmd *exec.Cmd, cases []sigCase) []any {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in), &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	var results []any
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("%v printed %q (%v); want %d results", cmd.Args, out, err, len(cases))
	}
	return results
}

// verifyWithLibraries checks the Library cases with Standard Webhooks' own npm and PyPI packages,
// as `make webhook-tools` installs them into .tools/standardwebhooks and .venv.
func verifyWithLibraries(t *testing.T, root string, cases []sigCase) {
	var lib []sigCase
	for _, c := range cases {
		if c.Library {
			lib = append(lib, c)
		}
	}
	npm := filepath.Join(root, ".tools", "standardwebhooks", "node_modules", "standardwebhooks")
	python := filepath.Join(root, ".venv", "bin", "python3")
	var missing []string
	if _, err := os.Stat(npm); err != nil {
		missing = append(missing, "npm standardwebhooks ("+npm+")")
	}
	if exec.Command(python, "-c", "import standardwebhooks").Run() != nil {
		missing = append(missing, "PyPI standardwebhooks (in "+python+")")
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("missing under CI=true: %s; `make webhook-tools` installs them", strings.Join(missing, ", "))
		}
		t.Skipf("missing: %s; `make webhook-tools` installs them", strings.Join(missing, ", "))
	}
	const nodeLib = `const { Webhook } = require(process.argv[1]);
const out = JSON.parse(require("node:fs").readFileSync(0, "utf8")).map((c) => {
  const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
  try {
    new Webhook(c.secret).verify(Buffer.from(c.body, "base64").toString("utf8"), headers);
    return true;
  } catch (e) {
    return e.name === "WebhookVerificationError" ? false : String(e);
  }
});
console.log(JSON.stringify(out));
`
	const pythonLib = `import base64, json, sys
from standardwebhooks.webhooks import Webhook, WebhookVerificationError
out = []
for c in json.load(sys.stdin):
    try:
        Webhook(c["secret"]).verify(base64.b64decode(c["body"]), c["headers"], json_parse=False)
        out.append(True)
    except WebhookVerificationError:
        out.append(False)
    except Exception as e:
        out.append(f"{type(e).__name__}: {e}")
print(json.dumps(out))
`
	for name, cmd := range map[string]*exec.Cmd{
		"npm standardwebhooks":  exec.Command("node", "-e", nodeLib, npm),
		"PyPI standardwebhooks": exec.Command(python, "-c", pythonLib),
	} {
		for i, got := range runHarness(t, cmd, lib) {
			if got != lib[i].Want {
				t.Errorf("%s, %s: %v; want %v", name, lib[i].Name, got, lib[i].Want)
			}
		}
	}
}
