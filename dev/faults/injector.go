package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
)

// ControlVar names the variable that carries the injector's control URL to the programs around a
// stack with faults (the chaos run): GET it for the spec in force and the faults injected so far,
// PUT a spec (Parse's text) to change the faults at once.
const ControlVar = "PATIO_FAULTS_URL"

// endpointVars are the SDK's endpoint variables of each service the injector stands in front of.
var endpointVars = map[string][]string{
	"dynamodb": {"AWS_ENDPOINT_URL_DYNAMODB"},
	"streams":  {"AWS_ENDPOINT_URL_DYNAMODB_STREAMS"},
	"sqs":      {"AWS_ENDPOINT_URL_SQS"},
	"ses":      {"AWS_ENDPOINT_URL_SES", "AWS_ENDPOINT_URL_SESV2"},
	"cognito":  {"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"},
}

// Injector runs a fault proxy in front of each engine endpoint, on free loopback ports, and a
// control endpoint.
type Injector struct {
	mu       sync.Mutex
	spec     Spec
	injected map[string]int // "service/Operation/fault" → calls it was injected into

	urls    map[string]string
	control string
	servers []*http.Server
}

// Start starts a proxy for each service of upstreams (service name → the engine's base URL) and
// the control endpoint, with spec in force. The caller must call Close.
func Start(upstreams map[string]string, spec Spec) (_ *Injector, err error) {
	inj := &Injector{spec: spec, injected: map[string]int{}, urls: map[string]string{}}
	defer func() {
		if err != nil {
			_ = inj.Close()
		}
	}()
	for service, upstream := range upstreams {
		p, err := newProxy(service, upstream, inj)
		if err != nil {
			return nil, fmt.Errorf("faults: %s: %w", service, err)
		}
		if inj.urls[service], err = inj.serve(p); err != nil {
			return nil, err
		}
	}
	inj.control, err = inj.serve(http.HandlerFunc(inj.serveControl))
	return inj, err
}

func (inj *Injector) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("faults: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	inj.servers = append(inj.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Wrap starts an injector in front of every engine of st and points st.Env's endpoint variables
// at its proxies, with ControlVar set to its control URL; call it before st.Setenv.
func Wrap(st *localaws.Stack, spec Spec) (*Injector, error) {
	upstreams := map[string]string{}
	for service, vars := range endpointVars {
		if v, ok := st.Env[vars[0]]; ok {
			upstreams[service] = v
		}
	}
	inj, err := Start(upstreams, spec)
	if err != nil {
		return nil, err
	}
	for service, vars := range endpointVars {
		for _, v := range vars {
			if _, ok := st.Env[v]; ok {
				st.Env[v] = inj.urls[service]
			}
		}
	}
	st.Env[ControlVar] = inj.control
	return inj, nil
}

// URL returns the proxy's base URL for service ("" when it has none).
func (inj *Injector) URL(service string) string { return inj.urls[service] }

// ControlURL returns the control endpoint's URL.
func (inj *Injector) ControlURL() string { return inj.control }

// Spec returns the spec in force.
func (inj *Injector) Spec() Spec {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.spec
}

// Set puts spec in force for every call that starts from now on.
func (inj *Injector) Set(spec Spec) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	inj.spec = spec
}

// Injected returns how many calls got each fault so far, by "service/Operation/fault".
func (inj *Injector) Injected() map[string]int {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	out := make(map[string]int, len(inj.injected))
	for k, v := range inj.injected {
		out[k] = v
	}
	return out
}

func (inj *Injector) count(service, op string, kind Kind) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	inj.injected[service+"/"+op+"/"+string(kind)]++
}

// Status is the control endpoint's answer.
type Status struct {
	Spec     string         `json:"spec"`
	Injected map[string]int `json:"injected"`
}

func (inj *Injector) serveControl(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodPut, http.MethodPost:
		text, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		spec, perr := Parse(string(text))
		if err = errors.Join(err, perr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		inj.Set(spec)
	default:
		http.Error(w, "GET or PUT", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Status{Spec: inj.Spec().String(), Injected: inj.Injected()})
}

// Close stops the proxies and the control endpoint.
func (inj *Injector) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var errs []error
	for _, s := range inj.servers {
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// SetRemote puts spec in force on the injector whose control URL is control.
func SetRemote(ctx context.Context, control, spec string) (Status, error) {
	if _, err := Parse(spec); err != nil {
		return Status{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, control, strings.NewReader(spec))
	if err != nil {
		return Status{}, err
	}
	return doControl(req)
}

// GetRemote returns the state of the injector whose control URL is control.
func GetRemote(ctx context.Context, control string) (Status, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, control, nil)
	if err != nil {
		return Status{}, err
	}
	return doControl(req)
}

func doControl(req *http.Request) (Status, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Status{}, fmt.Errorf("faults: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return Status{}, fmt.Errorf("faults: %s: %s", resp.Status, msg)
	}
	var st Status
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// Keys returns the keys of Injected's map, sorted.
func Keys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
