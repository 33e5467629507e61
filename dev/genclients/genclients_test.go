package genclients_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// The generators' versions, pinned. The TypeScript tools are installed by `make client-tools`
// into .tools/clients (CLIENT_TOOLS points at its node_modules/.bin).
const (
	oapiCodegen    = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	oapiRuntime    = "github.com/oapi-codegen/runtime v1.8.0"
	clientToolsVar = "CLIENT_TOOLS"
	// oagJarVar names openapi-generator's CLI jar (Maven Central), which `make client-tools`
	// downloads into .tools/clients; it runs on the machine's Java.
	oagJarVar = "OPENAPI_GENERATOR_JAR"
)

// root returns the module root (where openapi.yaml is).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "openapi.yaml")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs a command in dir, failing the test with its output on error.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoClient generates the Go client with oapi-codegen's defaults, builds it into
// testdata/roundtrip, and runs that against the API: create, read back price 1234567.89 exactly,
// list two statuses, a typed 422 with its message.
func TestGoClient(t *testing.T) {
	api, key := serveAPI(t)
	src := root(t)
	mod := t.TempDir()
	copyFile(t, "testdata/roundtrip/main.go", filepath.Join(mod, "main.go"))
	copyFile(t, "testdata/oapi-codegen.yaml", filepath.Join(mod, "oapi-codegen.yaml"))
	if err := os.WriteFile(filepath.Join(mod, "go.mod"),
		[]byte("module roundtrip\n\ngo 1.26\n\nrequire "+oapiRuntime+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, mod, nil, "go", "run", oapiCodegen, "-config", "oapi-codegen.yaml", filepath.Join(src, "openapi.yaml"))
	run(t, mod, nil, "go", "mod", "tidy")
	run(t, mod, nil, "go", "vet", "./...")
	run(t, mod, nil, "go", "build", "-o", "roundtrip", ".")
	out := run(t, mod, []string{"PATIO_URL=" + api, "PATIO_KEY=" + key}, filepath.Join(mod, "roundtrip"))
	t.Log(strings.TrimSpace(out))
}

// TestOpenAPIGeneratorGoClient generates the Go client with openapi-generator (no options beyond
// the package name), builds testdata/oag-roundtrip with it, and runs that against the API: create,
// read back price 1234567.89 exactly, list two statuses, a typed 422 with its message.
func TestOpenAPIGeneratorGoClient(t *testing.T) {
	jar := tool(t, oagJarVar, "the openapi-generator CLI jar (.tools/clients/openapi-generator-cli-<version>.jar)")
	api, key := serveAPI(t)
	mod := t.TempDir()
	copyFile(t, "testdata/oag-roundtrip/main.go", filepath.Join(mod, "main.go"))
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module oagroundtrip\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, mod, nil, "java", "-jar", jar, "generate", "-i", filepath.Join(root(t), "openapi.yaml"), "-g", "go",
		"-o", filepath.Join(mod, "patioclient"), "--package-name", "patioclient",
		"--additional-properties=withGoMod=false", "--global-property=apiTests=false,modelTests=false,apiDocs=false,modelDocs=false")
	run(t, mod, nil, "go", "mod", "tidy")
	run(t, mod, nil, "go", "vet", "./...")
	run(t, mod, nil, "go", "build", "-o", "roundtrip", ".")
	out := run(t, mod, []string{"PATIO_URL=" + api, "PATIO_KEY=" + key}, filepath.Join(mod, "roundtrip"))
	t.Log(strings.TrimSpace(out))
}

// tool returns the path in the environment variable name (relative to the module root, or
// absolute). Unset, the test fails under CI=true and is skipped otherwise.
func tool(t *testing.T, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: run `make client-tools` (make test does)", name)
		}
		t.Skipf("%s is not set to %s: run `make client-tools`, or make test", name, what)
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(root(t), v)
	}
	return v
}

// TestTypeScriptTypes generates the TypeScript types with openapi-typescript and compiles
// testdata/check.ts against them with tsc --strict.
func TestTypeScriptTypes(t *testing.T) {
	bin := tool(t, clientToolsVar, ".tools/clients/node_modules/.bin")
	dir := t.TempDir()
	copyFile(t, "testdata/check.ts", filepath.Join(dir, "check.ts"))
	run(t, dir, nil, filepath.Join(bin, "openapi-typescript"), filepath.Join(root(t), "openapi.yaml"), "-o", "schema.ts")
	run(t, dir, nil, filepath.Join(bin, "tsc"), "--strict", "--noEmit", "--target", "es2022",
		"--module", "nodenext", "--moduleResolution", "nodenext", "check.ts", "schema.ts")
}

// serveAPI serves the API (every resource) on DynamoDB Local over real HTTP, with a team and a key
// of every scope, and returns its URL and the key.
func serveAPI(t *testing.T) (string, string) {
	t.Helper()
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	conf, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	h, err := app.API(cfg, conf, slog.New(slog.NewJSONHandler(io.Discard, nil)), app.Vehicles, app.Clients, app.Deals)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	store := dynamostore.New(cfg, conf.Tables)
	ctx := context.Background()
	team, err := patio.NewTeam("Generated clients", "ops@example.com", "autoshopping")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	k, secret, err := patio.NewAPIKey(team.ID, "roundtrip", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(store.DB()).CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	return srv.URL, secret
}
