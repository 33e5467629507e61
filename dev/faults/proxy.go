package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// maxHold bounds how long TimeoutAfter holds an answer when the caller never gives up; the SDK's
// attempts give up after a few seconds (shared/app's attempt timeout).
const maxHold = 30 * time.Second

// proxy forwards one service's calls to its engine, injecting the faults its injector's spec names.
type proxy struct {
	service  string
	upstream *url.URL
	inj      *Injector
	client   *http.Client
}

func newProxy(service, upstream string, inj *Injector) (*proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	return &proxy{service: service, upstream: u, inj: inj, client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}, nil
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	op := operation(r, body)
	kind := p.decide(op)
	if kind != "" {
		p.inj.count(p.service, op, kind)
	}
	switch kind {
	case Throttle, Throttling, Error500:
		errorFor(p.service, kind).write(w)
		return
	case Reset:
		reset(w)
		return
	case LoseDelete:
		if ack, ok := deleteAck(op, body); ok {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			_, _ = w.Write(ack)
			return
		}
	}
	resp, err := p.forward(r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		reset(w)
		return
	}
	if kind == TimeoutAfter {
		// The engine applied the call; its answer never reaches the caller.
		select {
		case <-r.Context().Done():
		case <-time.After(maxHold):
		}
		reset(w)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// decide returns the fault the call gets, "" for none, after sleeping any latency that fires.
func (p *proxy) decide(op string) Kind {
	for _, r := range p.inj.Spec() {
		if r.Service != p.service || (r.Op != "" && r.Op != op) || rand.Float64() >= r.Rate {
			continue
		}
		if r.Kind == Latency {
			time.Sleep(r.Delay)
			continue
		}
		if r.Kind == LoseDelete && !strings.HasPrefix(op, "DeleteMessage") {
			continue
		}
		return r.Kind
	}
	return ""
}

func (p *proxy) forward(r *http.Request, body []byte) (*http.Response, error) {
	u := *p.upstream
	u.Path, u.RawPath = r.URL.Path, r.URL.RawPath
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host // the signature covers the host the SDK addressed
	return p.client.Do(out)
}

// operation names the call: the JSON protocols' X-Amz-Target after its dot, the query protocol's
// Action, or a REST call's last path segment.
func operation(r *http.Request, body []byte) string {
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		_, op, _ := strings.Cut(t, ".")
		return op
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if v, err := url.ParseQuery(string(body)); err == nil && v.Get("Action") != "" {
			return v.Get("Action")
		}
	}
	return path.Base(r.URL.Path)
}

// deleteAck is the answer SQS gives a DeleteMessage or DeleteMessageBatch that succeeded.
func deleteAck(op string, body []byte) ([]byte, bool) {
	switch op {
	case "DeleteMessage":
		return []byte("{}"), true
	case "DeleteMessageBatch":
		var in struct{ Entries []struct{ Id string } }
		if json.Unmarshal(body, &in) != nil {
			return nil, false
		}
		type entry struct{ Id string }
		out := struct{ Successful, Failed []entry }{Successful: []entry{}, Failed: []entry{}}
		for _, e := range in.Entries {
			out.Successful = append(out.Successful, entry{e.Id})
		}
		b, _ := json.Marshal(out)
		return b, true
	}
	return nil, false
}

// reset closes the caller's connection with a TCP reset, answering nothing.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
