package app_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/usageplans"
)

// edgeTemplate is the part of template.yaml the edge is made of. yaml.v3 reads CloudFormation's
// short-form tags as their argument (!Ref X is "X", !GetAtt X.Arn is "X.Arn").
type edgeTemplate struct {
	Resources map[string]struct {
		Type       string    `yaml:"Type"`
		Properties yaml.Node `yaml:"Properties"`
	} `yaml:"Resources"`
	Outputs map[string]struct {
		Value string `yaml:"Value"`
	} `yaml:"Outputs"`
}

type usagePlan struct {
	ApiStages []struct {
		ApiID string `yaml:"ApiId"`
		Stage string `yaml:"Stage"`
	} `yaml:"ApiStages"`
	Throttle *struct {
		BurstLimit int     `yaml:"BurstLimit"`
		RateLimit  float64 `yaml:"RateLimit"`
	} `yaml:"Throttle"`
	Quota *struct {
		Limit  int    `yaml:"Limit"`
		Period string `yaml:"Period"`
	} `yaml:"Quota"`
}

type gatewayResponse struct {
	StatusCode         string `yaml:"StatusCode"`
	ResponseParameters struct {
		Headers map[string]string `yaml:"Headers"`
	} `yaml:"ResponseParameters"`
	ResponseTemplates map[string]string `yaml:"ResponseTemplates"`
}

type restAPI struct {
	ApiKeySourceType string `yaml:"ApiKeySourceType"`
	Auth             struct {
		DefaultAuthorizer string `yaml:"DefaultAuthorizer"`
		ApiKeyRequired    bool   `yaml:"ApiKeyRequired"`
		Authorizers       map[string]struct {
			FunctionPayloadType string `yaml:"FunctionPayloadType"`
			FunctionArn         string `yaml:"FunctionArn"`
			Identity            struct {
				Headers          []string `yaml:"Headers"`
				ReauthorizeEvery int      `yaml:"ReauthorizeEvery"`
			} `yaml:"Identity"`
		} `yaml:"Authorizers"`
	} `yaml:"Auth"`
	GatewayResponses map[string]gatewayResponse `yaml:"GatewayResponses"`
}

type function struct {
	Events map[string]struct {
		Type       string `yaml:"Type"`
		Properties struct {
			RestApiID string         `yaml:"RestApiId"`
			Auth      map[string]any `yaml:"Auth"`
		} `yaml:"Properties"`
	} `yaml:"Events"`
}

func loadEdgeTemplate(t *testing.T) edgeTemplate {
	t.Helper()
	path, err := samtemplate.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tpl edgeTemplate
	if err := yaml.Unmarshal(data, &tpl); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	return tpl
}

// properties decodes the Properties of the resource id, which must be of type typ.
func properties(t *testing.T, tpl edgeTemplate, id, typ string, v any) {
	t.Helper()
	r, ok := tpl.Resources[id]
	if !ok || r.Type != typ {
		t.Fatalf("template.yaml has no %s %s", typ, id)
	}
	if err := r.Properties.Decode(v); err != nil {
		t.Fatalf("%s.Properties: %v", id, err)
	}
}

// TestUsagePlansLooserThanTheApplication keeps the usage plans a coarse outer guard (docs/edge.md):
// never stricter than the application's exact limits (patio.Plan.Limits), which are the ones
// clients are promised.
func TestUsagePlansLooserThanTheApplication(t *testing.T) {
	tpl := loadEdgeTemplate(t)
	var ids []string
	for id, r := range tpl.Resources {
		if r.Type == "AWS::ApiGateway::UsagePlan" {
			ids = append(ids, id)
		}
	}
	if len(ids) != len(patio.Plans) {
		t.Errorf("template.yaml has usage plans %v; want one per plan %v", ids, patio.Plans)
	}
	for _, p := range patio.Plans {
		t.Run(string(p), func(t *testing.T) {
			id := strings.TrimSuffix(usageplans.OutputKey(p), "Id") // StarterUsagePlan
			var up usagePlan
			properties(t, tpl, id, "AWS::ApiGateway::UsagePlan", &up)
			lim := p.Limits()
			if len(up.ApiStages) != 1 || up.ApiStages[0].ApiID != "PatioApi" || up.ApiStages[0].Stage != "PatioApi.Stage" {
				t.Errorf("%s.ApiStages = %+v; want PatioApi's stage", id, up.ApiStages)
			}
			if up.Throttle == nil {
				t.Fatalf("%s has no Throttle", id)
			}
			if up.Throttle.BurstLimit < lim.PerMinute {
				t.Errorf("%s BurstLimit = %d; want at least the per-minute limit %d", id, up.Throttle.BurstLimit, lim.PerMinute)
			}
			// Headroom: a steady rate at least 1.5 times the per-minute limit spread over a minute.
			if up.Throttle.RateLimit*60 < 1.5*float64(lim.PerMinute) {
				t.Errorf("%s RateLimit = %v/s (%v a minute); want at least 1.5 × %d a minute", id, up.Throttle.RateLimit, up.Throttle.RateLimit*60, lim.PerMinute)
			}
			switch {
			case lim.PerDay == 0 && up.Quota != nil:
				t.Errorf("%s Quota = %+v; want none: the plan has no daily limit", id, *up.Quota)
			case lim.PerDay > 0 && up.Quota == nil:
				t.Errorf("%s has no Quota; want a daily one above %d", id, lim.PerDay)
			case lim.PerDay > 0 && (up.Quota.Period != "DAY" || up.Quota.Limit <= lim.PerDay):
				t.Errorf("%s Quota = %+v; want a DAY quota above %d", id, *up.Quota, lim.PerDay)
			}
			if out := tpl.Outputs[usageplans.OutputKey(p)]; out.Value != id {
				t.Errorf("output %s = %q; want !Ref %s (the operators' tool reads it)", usageplans.OutputKey(p), out.Value, id)
			}
		})
	}
}

// TestAPIRequiresTheAuthorizerAndAKey checks the API's edge configuration: the REQUEST authorizer
// on the Authorization header by default, API keys from the authorizer, required on every method,
// and no function event that opts out.
func TestAPIRequiresTheAuthorizerAndAKey(t *testing.T) {
	tpl := loadEdgeTemplate(t)
	var api restAPI
	properties(t, tpl, "PatioApi", "AWS::Serverless::Api", &api)
	if api.ApiKeySourceType != "AUTHORIZER" {
		t.Errorf("ApiKeySourceType = %q; want AUTHORIZER", api.ApiKeySourceType)
	}
	if !api.Auth.ApiKeyRequired {
		t.Errorf("Auth.ApiKeyRequired = false; want true")
	}
	a, ok := api.Auth.Authorizers[api.Auth.DefaultAuthorizer]
	if !ok {
		t.Fatalf("Auth.DefaultAuthorizer %q is not among Auth.Authorizers", api.Auth.DefaultAuthorizer)
	}
	if a.FunctionPayloadType != "REQUEST" || a.FunctionArn != "AuthorizerFunction.Arn" ||
		!slices.Equal(a.Identity.Headers, []string{"Authorization"}) || a.Identity.ReauthorizeEvery <= 0 {
		t.Errorf("default authorizer = %+v; want a REQUEST authorizer on AuthorizerFunction, identity the Authorization header, cached", a)
	}
	properties(t, tpl, "AuthorizerFunction", "AWS::Serverless::Function", new(function))
	for id, r := range tpl.Resources {
		if r.Type != "AWS::Serverless::Function" {
			continue
		}
		var fn function
		properties(t, tpl, id, r.Type, &fn)
		for name, ev := range fn.Events {
			if ev.Type != "Api" || id == "ConsoleFunction" { // the console has an API of its own, without keys
				continue
			}
			if ev.Properties.RestApiID != "PatioApi" {
				t.Errorf("%s event %s: RestApiId = %q; want PatioApi", id, name, ev.Properties.RestApiID)
			}
			if ev.Properties.Auth != nil {
				t.Errorf("%s event %s overrides Auth (%v); every method keeps the authorizer and the key", id, name, ev.Properties.Auth)
			}
		}
	}
}

// TestConsoleOnItsOwnAPI: the console's routes are on the console's own API, under /console (and
// its root, which sends people there), and nowhere else: the public API gains none.
func TestConsoleOnItsOwnAPI(t *testing.T) {
	tpl := loadEdgeTemplate(t)
	properties(t, tpl, "ConsoleApi", "AWS::Serverless::Api", new(restAPI))
	var fn function
	properties(t, tpl, "ConsoleFunction", "AWS::Serverless::Function", &fn)
	if len(fn.Events) == 0 {
		t.Fatal("ConsoleFunction has no events")
	}
	for name, ev := range fn.Events {
		if ev.Type != "Api" || ev.Properties.RestApiID != "ConsoleApi" {
			t.Errorf("ConsoleFunction event %s: %s on %q; want Api events on ConsoleApi", name, ev.Type, ev.Properties.RestApiID)
		}
	}
}

// TestGatewayResponsesInTheEnvelope checks that every response API Gateway can produce on its own
// answers in our envelope with the status and code the application gives the same case
// (docs/edge.md).
func TestGatewayResponsesInTheEnvelope(t *testing.T) {
	want := map[string]struct {
		status int
		code   string
	}{
		"UNAUTHORIZED":                   {401, "UNAUTHORIZED"},
		"EXPIRED_TOKEN":                  {401, "UNAUTHORIZED"},
		"INVALID_SIGNATURE":              {401, "UNAUTHORIZED"},
		"ACCESS_DENIED":                  {403, "FORBIDDEN"},
		"INVALID_API_KEY":                {403, "FORBIDDEN"},
		"WAF_FILTERED":                   {403, "FORBIDDEN"},
		"MISSING_AUTHENTICATION_TOKEN":   {404, "NOT_FOUND"},
		"RESOURCE_NOT_FOUND":             {404, "NOT_FOUND"},
		"THROTTLED":                      {429, "RATE_LIMIT_EXCEEDED"},
		"QUOTA_EXCEEDED":                 {429, "RATE_LIMIT_EXCEEDED"},
		"REQUEST_TOO_LARGE":              {400, "VALIDATION_ERROR"},
		"UNSUPPORTED_MEDIA_TYPE":         {400, "VALIDATION_ERROR"},
		"BAD_REQUEST_BODY":               {400, "VALIDATION_ERROR"},
		"BAD_REQUEST_PARAMETERS":         {400, "VALIDATION_ERROR"},
		"DEFAULT_4XX":                    {400, "VALIDATION_ERROR"},
		"AUTHORIZER_FAILURE":             {500, "INTERNAL_ERROR"},
		"AUTHORIZER_CONFIGURATION_ERROR": {500, "INTERNAL_ERROR"},
		"API_CONFIGURATION_ERROR":        {500, "INTERNAL_ERROR"},
		"INTEGRATION_FAILURE":            {500, "INTERNAL_ERROR"},
		"INTEGRATION_TIMEOUT":            {504, "INTERNAL_ERROR"},
		"DEFAULT_5XX":                    {500, "INTERNAL_ERROR"},
	}
	tpl := loadEdgeTemplate(t)
	var api restAPI
	properties(t, tpl, "PatioApi", "AWS::Serverless::Api", &api)
	if got, w := slices.Sorted(maps.Keys(api.GatewayResponses)), slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
		t.Errorf("GatewayResponses = %v; want %v", got, w)
	}
	for _, typ := range slices.Sorted(maps.Keys(want)) {
		w := want[typ]
		t.Run(typ, func(t *testing.T) {
			r, ok := api.GatewayResponses[typ]
			if !ok {
				t.Fatalf("no gateway response %s", typ)
			}
			if got, _ := strconv.Atoi(r.StatusCode); got != w.status {
				t.Errorf("StatusCode = %q; want %d", r.StatusCode, w.status)
			}
			if got := r.ResponseParameters.Headers["Content-Type"]; got != "'application/json'" {
				t.Errorf("Content-Type header = %q; want 'application/json'", got)
			}
			retry, ok := r.ResponseParameters.Headers["Retry-After"]
			if w.status == 429 && retry != "'60'" {
				t.Errorf("Retry-After header = %q; want '60'", retry)
			}
			if w.status != 429 && ok {
				t.Errorf("Retry-After header on a %d", w.status)
			}
			if len(r.ResponseTemplates) != 1 {
				t.Errorf("ResponseTemplates = %v; want only application/json", r.ResponseTemplates)
			}
			body := r.ResponseTemplates["application/json"]
			var env struct {
				Success *bool `json:"success"`
				Error   *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			dec := json.NewDecoder(strings.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&env); err != nil || env.Success == nil || *env.Success || env.Error == nil {
				t.Fatalf("template %q is not the error envelope: %v", body, err)
			}
			if env.Error.Code != w.code || env.Error.Message == "" || strings.Contains(body, "$") {
				t.Errorf("envelope error = %+v; want code %s and a fixed message", *env.Error, w.code)
			}
		})
	}
}
