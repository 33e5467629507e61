// Package archtest holds no code, only tests of the import graph: the layering docs/architecture.md
// describes (the domain imports only the standard library and small pure libraries; adapters depend
// on the domain, not on each other; the console's parts stand apart from its handlers and from one
// another) checked with `go list`, so `make test` and `make lint` keep it. It also keeps the
// store's types small (methods_test.go), and the making of DynamoDB clients in the store's core
// (dynamoclient_test.go).
package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/patio-dev/patio/"

// domain lists the domain packages. They import only the standard library (minus the packages in
// forbiddenStd), one another, and the libraries in pureLibraries.
var domain = []string{"shared/patio", "shared/money", "shared/br", "shared/webhook", "shared/delivery"}

// pureLibraries are the non-standard import path prefixes the domain may use: small libraries with
// no I/O of their own.
var pureLibraries = []string{
	"github.com/google/uuid",        // UUIDv7 ids
	"github.com/shopspring/decimal", // exact money
	"golang.org/x/text/",            // accent folding for text sorts
}

// forbiddenStd are standard packages that mean I/O or transport, found anywhere in the domain's
// dependencies.
var forbiddenStd = []string{"net/http", "os/exec", "database/sql", "plugin"}

// adapters must not import one another; each depends on the domain only. Missing ones are skipped
// so the list can name adapters before they exist.
var adapters = []string{"shared/dynamostore", "shared/httpapi", "shared/sqsqueue", "shared/webhookhttp", "shared/sesmail", "shared/authorizer", "shared/usageplans", "shared/xray",
	"shared/console", "shared/cognito", "shared/s3photos"}

type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	Deps       []string
	GoFiles    []string
	Export     string // the compiled export data (with -export)
	Error      *struct{ Err string }
}

// list runs `go list -json` with args and decodes the packages it prints.
func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestDomainImportsOnlyPureLibraries(t *testing.T) {
	for _, d := range domain {
		t.Run(d, func(t *testing.T) {
			pkgs := list(t, module+d)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Fatalf("go list %s = %+v; want the domain package (update archtest if it moved)", d, pkgs)
			}
			std := map[string]bool{}
			for _, p := range list(t, "-deps", module+d) {
				std[p.ImportPath] = p.Standard
			}
			for _, dep := range pkgs[0].Deps {
				switch {
				case std[dep]:
					if slices.Contains(forbiddenStd, dep) {
						t.Errorf("%s depends on %s; the domain does no I/O", d, dep)
					}
				case isDomain(dep):
				case hasAnyPrefix(dep, pureLibraries):
				default:
					t.Errorf("%s depends on %s; the domain imports only the standard library and %v", d, dep, pureLibraries)
				}
			}
		})
	}
}

func TestAdaptersDoNotImportEachOther(t *testing.T) {
	for _, a := range adapters {
		t.Run(a, func(t *testing.T) {
			pkgs := list(t, module+a)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Skipf("%s does not exist (yet)", a)
			}
			for _, dep := range pkgs[0].Deps {
				for _, other := range adapters {
					if other != a && (dep == module+other || strings.HasPrefix(dep, module+other+"/")) {
						t.Errorf("%s depends on %s; adapters depend on the domain, not on each other", a, dep)
					}
				}
			}
		})
	}
}

func isDomain(path string) bool {
	for _, d := range domain {
		if path == module+d {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == strings.TrimSuffix(p, "/") || strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// lean lists the functions that serve requests (API Gateway's and its authorizer) and the packages
// they must not link: the webhook workers' queue, mailer and HTTP sender, and their AWS clients.
// Every package a function links adds to its binary and to its cold start (package init).
var lean = struct{ functions, forbidden []string }{
	functions: []string{"functions/vehicles", "functions/clients", "functions/deals", "functions/authorizer", "functions/indexer"},
	forbidden: []string{
		module + "shared/sqsqueue", module + "shared/sesmail", module + "shared/webhookhttp", module + "shared/app/workers",
		module + "shared/console", module + "shared/cognito", module + "shared/app/consoleapp",
		"github.com/aws/aws-sdk-go-v2/service/sqs", "github.com/aws/aws-sdk-go-v2/service/sesv2",
		// The image function's codecs and resizer (shared/app/imagesapp builds it).
		module + "shared/photos", module + "shared/app/imagesapp", "github.com/disintegration/imaging",
		// The image function's S3 client (the API signs its upload targets and removals itself).
		module + "shared/s3photos/s3objects", "github.com/aws/aws-sdk-go-v2/service/s3",
	},
}

func TestRequestFunctionsLinkNoWebhookWorker(t *testing.T) {
	for _, fn := range lean.functions {
		t.Run(fn, func(t *testing.T) {
			pkgs := list(t, module+fn)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Fatalf("go list %s = %+v; want the function's package (update archtest if it moved)", fn, pkgs)
			}
			for _, dep := range pkgs[0].Deps {
				if slices.Contains(lean.forbidden, dep) {
					t.Errorf("%s links %s; only the webhook workers need it (build them from shared/app/workers)", fn, dep)
				}
			}
		})
	}
}

// sdkLoader is the AWS SDK's configuration loader. A Lambda function reads its configuration from
// the variables Lambda sets (app.LambdaAWS); linking the loader would add its package
// initialisation (its STS, SSO and sign-in clients, about 0.3 MB) to the binary and to the cold
// start. The programs that run elsewhere load it through shared/app/awsconfig.
const sdkLoader = "github.com/aws/aws-sdk-go-v2/config"

func TestFunctionsLinkNoSDKLoader(t *testing.T) {
	pkgs := list(t, module+"functions/...")
	if len(pkgs) < 10 {
		t.Fatalf("go list functions/... = %d packages; want every function (update archtest if they moved)", len(pkgs))
	}
	for _, p := range pkgs {
		if p.Error != nil {
			t.Fatalf("go list %s: %v", p.ImportPath, p.Error)
		}
		if slices.Contains(p.Deps, sdkLoader) {
			t.Errorf("%s links %s; read the Lambda environment with app.LambdaAWS (app.LambdaBuild)", p.ImportPath, sdkLoader)
		}
	}
}

// heavyForTemplates are packages the console must not link: its html/template makes the linker keep
// every exported method of every type linked (text/template looks methods up by name), so each
// would keep its every operation or table (4.1 MB for the Cognito client, 2.4 MB for SES v2's,
// 0.6 MB for SQS's, 4.8 MB for S3's). The console calls Cognito, SES and SQS through
// shared/awsjson, signs its photos' upload targets and removals itself (shared/s3photos), and reads
// Accept-Language itself.
var heavyForTemplates = []string{
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider", "github.com/aws/aws-sdk-go-v2/service/sesv2",
	"github.com/aws/aws-sdk-go-v2/service/sqs", "github.com/aws/aws-sdk-go-v2/service/s3", "golang.org/x/text/language",
}

func TestConsoleLinksNoWholeSDKClientOfItsIdentityOrMail(t *testing.T) {
	pkgs := list(t, module+"functions/console")
	if len(pkgs) != 1 || pkgs[0].Error != nil {
		t.Fatalf("go list functions/console = %+v; want the function's package (update archtest if it moved)", pkgs)
	}
	for _, dep := range pkgs[0].Deps {
		if slices.Contains(heavyForTemplates, dep) {
			t.Errorf("functions/console links %s; its binary budget (16 MB) cannot carry it", dep)
		}
	}
}

// consoleParts are the console's small packages beside its handlers: the templates (render), the
// sessions (session), the forms' reading (form) and the languages (locale). Each stands on its
// own: it imports neither package console nor another part but locale, the one they share; so
// rendering, sessions and forms stay apart from each other and from the handlers.
var consoleParts = []string{"shared/console/render", "shared/console/session", "shared/console/form", "shared/console/locale"}

func TestConsolePartsStandApart(t *testing.T) {
	for _, part := range consoleParts {
		t.Run(part, func(t *testing.T) {
			pkgs := list(t, module+part)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Fatalf("go list %s = %+v; want the console's package (update archtest if it moved)", part, pkgs)
			}
			for _, dep := range pkgs[0].Deps {
				if dep == module+"shared/console" {
					t.Errorf("%s depends on package console; the handlers call it, not the other way round", part)
				}
				for _, other := range consoleParts {
					if other != part && other != "shared/console/locale" && dep == module+other {
						t.Errorf("%s depends on %s; the console's parts import none of one another but locale", part, dep)
					}
				}
			}
		})
	}
}

// faultInjector is the local stack's fault injector. The stack meets it only through the SDK's
// endpoint variables, so nothing that ships (the functions, shared/) links it: production code has
// no switch for faults.
const faultInjector = module + "dev/faults"

func TestShippedCodeLinksNoFaultInjector(t *testing.T) {
	pkgs := list(t, module+"functions/...", module+"shared/...")
	if len(pkgs) < 20 {
		t.Fatalf("go list functions/... shared/... = %d packages; want every one (update archtest if they moved)", len(pkgs))
	}
	for _, p := range pkgs {
		if p.Error != nil {
			t.Fatalf("go list %s: %v", p.ImportPath, p.Error)
		}
		if slices.Contains(p.Deps, faultInjector) {
			t.Errorf("%s links %s; faults reach the stack only through AWS_ENDPOINT_URL_* (cmd/local -faults)", p.ImportPath, faultInjector)
		}
	}
}
