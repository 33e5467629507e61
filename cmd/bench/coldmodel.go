package main

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// callProxy stands between a function's child process and DynamoDB Local, keeping each call's
// operation and times while it records, so that a cold start's first call can be modeled on AWS
// (its rounds at the published p50s) like a request of the API part.
type callProxy struct {
	url       string
	srv       *http.Server
	mu        sync.Mutex
	recording bool
	calls     []sdkCall
}

// newCallProxy serves a proxy of the DynamoDB endpoint target on 127.0.0.1.
func newCallProxy(target string) *callProxy {
	to := must(url.Parse(target))
	forward := httputil.NewSingleHostReverseProxy(to)
	p := &callProxy{}
	p.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := sdkCall{op: strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."), scanned: -1, start: time.Now()}
		forward.ServeHTTP(w, r)
		c.end = time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.recording {
			p.calls = append(p.calls, c)
		}
	})}
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	go func() { _ = p.srv.Serve(ln) }()
	p.url = "http://" + ln.Addr().String()
	return p
}

// trace runs f with recording on and returns its trace.
func (p *callProxy) trace(f func()) trace {
	p.mu.Lock()
	p.calls, p.recording = nil, true
	p.mu.Unlock()
	t := trace{start: time.Now()}
	f()
	t.end = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recording, t.calls = false, p.calls
	return t
}

// coldModeled is a cold start on AWS: the process's init as measured (its own work: our binary's
// start, not the emulator's), then the first call modeled (its rounds at the published p50s, plus
// the time outside its calls).
func coldModeled(r lambdaRow) time.Duration { return r.init + r.firstModel.latency() }
