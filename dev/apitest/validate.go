package apitest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/pb33f/libopenapi/utils"
)

// SpecFile is the OpenAPI document every response is checked against, at the module root.
const SpecFile = "openapi.yaml"

// notFoundResponse names the components response that answers any request the document has no
// operation for: unknown routes, wrong methods and the planned modules.
const notFoundResponse = "NotFound"

// spec is openapi.yaml, parsed and compiled once for the whole test binary.
type spec struct {
	path      string
	model     *v3.Document
	version   float32
	validator validator.Validator
	options   []config.Option
	notFound  *v3.Response
	routes    []route

	// mu serialises the calls into the validator. The shared schema cache keeps each call cheap
	// (BenchmarkValidate: well under a millisecond), but libopenapi renders a schema it has not
	// cached by walking the shared model, and that walk races: this package's concurrent test saw
	// it under -race when a schema was rendered per call. One lock keeps the check safe from any
	// goroutine whatever the library version does.
	mu sync.Mutex
}

// route is one path template of the document and its operations by upper-case method.
type route struct {
	template   string
	segments   []string // "{id}" matches any one non-empty segment
	operations map[string]*v3.Operation
}

var (
	specOnce   sync.Once
	loadedSpec *spec
	specErr    error
)

// loadSpec returns the compiled document, building it on first use. It is safe for concurrent use.
func loadSpec() (*spec, error) {
	specOnce.Do(func() {
		path, err := findSpec()
		if err == nil {
			loadedSpec, err = newSpec(path)
		}
		specErr = err
	})
	return loadedSpec, specErr
}

// findSpec walks up from the working directory to the directory holding go.mod and returns the
// path of SpecFile there.
func findSpec() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, SpecFile), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or above it")
		}
		dir = parent
	}
}

// newSpec parses and compiles the OpenAPI document at path.
func newSpec(path string) (*spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", path, err)
	}
	if model.Model.Components == nil || model.Model.Components.Responses == nil {
		return nil, fmt.Errorf("%s has no components.responses", path)
	}
	notFound, ok := model.Model.Components.Responses.Get(notFoundResponse)
	if !ok || notFound == nil {
		return nil, fmt.Errorf("%s has no components.responses.%s", path, notFoundResponse)
	}
	// Formats (uuid, date-time, date) are asserted, not merely annotations. One schema cache serves
	// the validator and the direct checks below, so each schema is rendered and compiled once.
	opts := []config.Option{config.WithFormatAssertions(), config.WithSchemaCache(cache.NewDefaultCache())}
	s := &spec{
		path:      path,
		model:     &model.Model,
		version:   helpers.VersionToFloat(model.Model.Version),
		validator: validator.NewValidatorFromV3Model(&model.Model, opts...),
		options:   opts,
		notFound:  notFound,
	}
	for tmpl, item := range model.Model.Paths.PathItems.FromOldest() {
		rt := route{template: tmpl, segments: strings.Split(tmpl, "/"), operations: map[string]*v3.Operation{}}
		for method, op := range item.GetOperations().FromOldest() {
			rt.operations[strings.ToUpper(method)] = op
		}
		s.routes = append(s.routes, rt)
	}
	s.validator.SetDocument(doc)
	if ok, errs := s.validator.ValidateDocument(); !ok {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document:%s", path, describe(errs))
	}
	if err := s.compileComponents(&model.Model); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// compileComponents compiles every schema of components.schemas and components.parameters as JSON
// Schema. The document check above does not look inside schemas (a `type: strin` passes it), and
// request-only schemas are never compiled by response validation, so a mistake there would
// otherwise go unnoticed.
func (s *spec) compileComponents(m *v3.Document) error {
	o := config.NewValidationOptions(s.options...)
	compile := func(name string, sp *base.SchemaProxy) error {
		if sp == nil {
			return fmt.Errorf("%s has no schema", name)
		}
		sch := sp.Schema()
		if sch == nil {
			return fmt.Errorf("%s: %v", name, sp.GetBuildError())
		}
		rendered, err := sch.RenderInline()
		if err != nil {
			return fmt.Errorf("%s: render: %w", name, err)
		}
		js, err := utils.ConvertYAMLtoJSON(rendered)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := helpers.NewCompiledSchemaWithVersion(name, js, o, s.version); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if m.Components.Schemas != nil {
		for name, sp := range m.Components.Schemas.FromOldest() {
			if err := compile("components.schemas."+name, sp); err != nil {
				return err
			}
		}
	}
	if m.Components.Parameters != nil {
		for name, p := range m.Components.Parameters.FromOldest() {
			if err := compile("components.parameters."+name, p.Schema); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks a response against openapi.yaml: its status is documented for the operation,
// its documented required headers are present and well formed, its Content-Type is documented and
// its body matches the schema. A request the document has no operation for (an unknown route, a
// wrong method, a planned module) must answer the NotFound response of components. body is the
// response body, already read from res. Failures are reported with t.Errorf, never t.Fatal, so
// validate may run on any goroutine.
func validate(t testing.TB, req *http.Request, res *http.Response, body []byte) {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Errorf("%s %s answered %d; cannot check it against %s: %v", req.Method, req.URL.Path, res.StatusCode, SpecFile, err)
		return
	}
	if problems := s.check(req, res, body); len(problems) > 0 {
		t.Errorf("%s %s answered %d, which %s does not allow:%s\nbody: %s",
			req.Method, req.URL.Path, res.StatusCode, SpecFile, strings.Join(problems, ""), truncate(body, 2000))
	}
}

// check returns what is wrong with the response, one "\n  - reason" line per problem. It is safe
// for concurrent use.
func (s *spec) check(req *http.Request, res *http.Response, body []byte) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(body) == 0 && res.StatusCode != http.StatusNotModified {
		return []string{"\n  - the body is empty; every answer is a JSON envelope but 304"}
	}
	r := routedRequest(req)
	if rt, op := s.operation(r); op != nil {
		ok, errs := s.validator.ValidateHttpResponse(r, withBody(res, body))
		if !ok && unrouted(errs) {
			return s.checkUnrouted(r, res, body)
		}
		problems := lines(errs)
		code := strconv.Itoa(res.StatusCode)
		if op.Responses != nil && op.Responses.Codes != nil {
			if documented, found := op.Responses.Codes.Get(code); found && documented != nil {
				problems = append(problems, s.optionalHeaders(r, res, documented.Headers, rt.template, code)...)
			}
		}
		return problems
	}
	return s.checkUnrouted(r, res, body)
}

// checkUnrouted checks the answer to a request the document has no operation for: the API must
// treat it as an unknown route and answer components.responses.NotFound.
func (s *spec) checkUnrouted(r *http.Request, res *http.Response, body []byte) []string {
	var problems []string
	if res.StatusCode != http.StatusNotFound {
		problems = append(problems, fmt.Sprintf(
			"\n  - %s %s has no operation in the document, so it must answer 404 NOT_FOUND, not %d",
			r.Method, r.URL.Path, res.StatusCode))
	}
	mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	media, found := s.notFound.Content.Get(mt)
	if err != nil || !found || media.Schema == nil {
		problems = append(problems, fmt.Sprintf("\n  - Content-Type %q is not the one of components.responses.%s",
			res.Header.Get("Content-Type"), notFoundResponse))
	} else {
		_, errs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
			Request: r, Response: withBody(res, body), Schema: media.Schema.Schema(), Version: s.version, Options: s.options,
		})
		problems = append(problems, lines(errs)...)
	}
	if s.notFound.Headers != nil {
		_, errs := responses.ValidateResponseHeaders(r, res, s.notFound.Headers, "", "404", s.options...)
		problems = append(problems, lines(errs)...)
		problems = append(problems, s.optionalHeaders(r, res, s.notFound.Headers, "", "404")...)
	}
	return problems
}

// optionalHeaders checks the values of the documented headers that are not required but present
// (the rate-limit headers). The library checks only required headers' values.
func (s *spec) optionalHeaders(r *http.Request, res *http.Response, documented *orderedmap.Map[string, *v3.Header], template, code string) []string {
	if documented == nil {
		return nil
	}
	present := orderedmap.New[string, *v3.Header]()
	for name, h := range documented.FromOldest() {
		if h != nil && !h.Required && res.Header.Get(name) != "" {
			c := *h
			c.Required = true
			present.Set(name, &c)
		}
	}
	if present.Len() == 0 {
		return nil
	}
	_, errs := responses.ValidateResponseHeaders(r, res, present, template, code, s.options...)
	return lines(errs)
}

// operation returns the route and operation the document has for the request's method and exact
// path, or nil. The library's own path lookup is lenient (it matches /api/v1/vehicles/ to
// /api/v1/vehicles), while the API answers such paths 404, so the exact match is decided here.
func (s *spec) operation(r *http.Request) (route, *v3.Operation) {
	segs := strings.Split(r.URL.Path, "/")
	for _, rt := range s.routes {
		if op := rt.operations[r.Method]; op != nil && matches(rt.segments, segs) {
			return rt, op
		}
	}
	return route{}, nil
}

func matches(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, t := range tmpl {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if segs[i] == "" {
				return false
			}
		} else if t != segs[i] {
			return false
		}
	}
	return true
}

// routedRequest returns the parts of req the validator reads: the method, and the URL path from
// /api/ on, so a base URL with an API Gateway stage (https://host/prod) matches the document's
// paths. The original request, whose body is already sent, is not touched.
func routedRequest(req *http.Request) *http.Request {
	path := req.URL.Path
	if i := strings.Index(path, "/api/"); i > 0 {
		path = path[i:]
	}
	return &http.Request{
		Method: req.Method,
		URL:    &url.URL{Path: path, RawQuery: req.URL.RawQuery},
		Header: req.Header.Clone(),
		Body:   http.NoBody,
	}
}

// withBody returns a shallow copy of res whose body reads body afresh.
func withBody(res *http.Response, body []byte) *http.Response {
	c := *res
	c.Body = io.NopCloser(bytes.NewReader(body))
	return &c
}

// unrouted reports whether the validator found no operation for the request.
func unrouted(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.IsPathMissingError() || e.IsOperationMissingError() {
			return true
		}
	}
	return false
}

// lines formats validation errors with their schema-level reasons.
func lines(errs []*verrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		line := "\n  - " + e.Message
		if e.Reason != "" && e.Reason != e.Message {
			line += ": " + e.Reason
		}
		for _, f := range e.SchemaValidationErrors {
			line += "\n      " + f.Reason
			if f.FieldPath != "" {
				line += " (at " + f.FieldPath + ")"
			} else if f.KeywordLocation != "" {
				line += " (schema " + f.KeywordLocation + ")"
			}
		}
		out = append(out, line)
	}
	return out
}

// describe joins validation errors into one text.
func describe(errs []*verrors.ValidationError) string { return strings.Join(lines(errs), "") }

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
