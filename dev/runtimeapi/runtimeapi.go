// Package runtimeapi runs a Lambda function's bootstrap binary as a child process under a small
// server of the AWS Lambda Runtime API, so that tests and the bench exercise the very artifacts that
// deploy, the way Lambda runs them. Development only.
//
// It follows the published Runtime API (version 2018-06-01), the parts a custom runtime uses:
//
//   - GET  /2018-06-01/runtime/invocation/next: blocks until an invocation is due and answers its
//     payload with the headers Lambda-Runtime-Aws-Request-Id, Lambda-Runtime-Deadline-Ms,
//     Lambda-Runtime-Invoked-Function-Arn and Lambda-Runtime-Trace-Id;
//   - POST /2018-06-01/runtime/invocation/{id}/response: the invocation's result;
//   - POST /2018-06-01/runtime/invocation/{id}/error: the invocation failed (Lambda-Runtime-Function-Error-Type
//     and an {errorMessage, errorType} body);
//   - POST /2018-06-01/runtime/init/error: the function could not start.
//
// The AWS Lambda Runtime Interface Emulator does the same in a container image; no package
// registry this project uses serves it, hence this server. One Function serves one invocation at a
// time, like one Lambda execution environment.
package runtimeapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
)

const prefix = "/2018-06-01/runtime/"

// Options describe the execution environment of a function.
type Options struct {
	// Name is the function's name (AWS_LAMBDA_FUNCTION_NAME); "function" when empty.
	Name string
	// Env is the process environment, as KEY=value, to which the Runtime API's and Lambda's own
	// variables are added (AWS_LAMBDA_RUNTIME_API, AWS_LAMBDA_FUNCTION_NAME, _HANDLER, ...).
	Env []string
	// Timeout is the function's timeout, which sets each invocation's deadline; 10 s when zero.
	Timeout time.Duration
	// MemoryMB is reported as AWS_LAMBDA_FUNCTION_MEMORY_SIZE; 256 when zero.
	MemoryMB int
	// Stderr receives the process's standard output and error (its logs); discarded when nil.
	Stderr io.Writer
	// Args are the process's arguments; a bootstrap takes none.
	Args []string
}

// Result is the outcome of one invocation.
type Result struct {
	RequestID string
	// Payload is the body the function posted as its response (nil after an error).
	Payload []byte
	// ErrorType and Error are set when the function posted an invocation error.
	ErrorType string
	Error     string
	// Duration is the time from the invocation being handed out (next) to its answer.
	Duration time.Duration
	// Trace is the X-Ray trace header the invocation carried (every invocation is sampled).
	Trace string
}

// Err returns the invocation's error as a Go error, or nil.
func (r Result) Err() error {
	if r.ErrorType == "" && r.Error == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", r.ErrorType, r.Error)
}

type invocation struct {
	id      string
	payload []byte
	trace   string
	given   time.Time
	done    chan Result
}

// Function is a bootstrap running under the Runtime API server.
type Function struct {
	opts    Options
	srv     *http.Server
	addr    string
	cmd     *exec.Cmd
	started time.Time

	queue  chan *invocation
	exited chan struct{}

	mu        sync.Mutex
	pending   map[string]*invocation
	firstNext time.Time
	ready     chan struct{} // closed at the first /next
	initErr   string
	waitErr   error
}

// Start serves the Runtime API on a loopback port and starts the bootstrap at path under it. It
// returns once the process has started; Ready waits for its initialisation.
func Start(path string, o Options) (*Function, error) {
	if o.Name == "" {
		o.Name = "function"
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MemoryMB == 0 {
		o.MemoryMB = 256
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Function{opts: o, addr: ln.Addr().String(), queue: make(chan *invocation),
		exited: make(chan struct{}), pending: map[string]*invocation{}, ready: make(chan struct{})}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()

	cmd := exec.Command(path, o.Args...)
	cmd.Env = append(append([]string{}, o.Env...),
		"AWS_LAMBDA_RUNTIME_API="+f.addr,
		"AWS_LAMBDA_FUNCTION_NAME="+o.Name,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE="+strconv.Itoa(o.MemoryMB),
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/"+o.Name,
		"AWS_LAMBDA_LOG_STREAM_NAME=local",
		"AWS_EXECUTION_ENV=AWS_Lambda_provided.al2023",
		// template.yaml's LoggingConfig (LogFormat JSON), which Lambda passes on this way.
		"AWS_LAMBDA_LOG_FORMAT=JSON",
		"AWS_LAMBDA_LOG_LEVEL=INFO",
		"_HANDLER=bootstrap",
		"LAMBDA_TASK_ROOT="+dirOf(path),
	)
	out := o.Stderr
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	f.started = time.Now()
	if err := cmd.Start(); err != nil {
		_ = f.srv.Close()
		return nil, fmt.Errorf("runtimeapi: start %s: %w", path, err)
	}
	f.cmd = cmd
	go func() {
		err := cmd.Wait()
		f.mu.Lock()
		f.waitErr = err
		f.mu.Unlock()
		close(f.exited)
	}()
	return f, nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "."
}

// Ready waits until the function asks for its first invocation (its initialisation is over) and
// returns the time from process start to then. It fails when the function reported an init error
// or exited first.
func (f *Function) Ready(ctx context.Context) (time.Duration, error) {
	select {
	case <-f.ready:
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.firstNext.Sub(f.started), nil
	case <-f.exited:
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.initErr != "" {
			return 0, fmt.Errorf("runtimeapi: %s: init error: %s", f.opts.Name, f.initErr)
		}
		return 0, fmt.Errorf("runtimeapi: %s exited before its first invocation: %v", f.opts.Name, f.waitErr)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// InitError returns the body of the init error the function posted, if any.
func (f *Function) InitError() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.initErr
}

// Addr is the Runtime API's host:port, the function's AWS_LAMBDA_RUNTIME_API.
func (f *Function) Addr() string { return f.addr }

// Exited is closed when the process has exited.
func (f *Function) Exited() <-chan struct{} { return f.exited }

// Invoke hands the function one invocation with payload and waits for its answer, the deadline
// (its timeout) or ctx. A function that exits or overruns its deadline fails the invocation, as
// Lambda would.
func (f *Function) Invoke(ctx context.Context, payload []byte) (Result, error) {
	inv := &invocation{id: uuid.NewString(), payload: payload, done: make(chan Result, 1),
		trace: "Root=1-" + strconv.FormatInt(time.Now().Unix(), 16) + "-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:24] + ";Parent=" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16] + ";Sampled=1"}
	select {
	case f.queue <- inv:
	case <-f.exited:
		return Result{}, fmt.Errorf("runtimeapi: %s has exited", f.opts.Name)
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	timer := time.NewTimer(f.opts.Timeout + time.Second)
	defer timer.Stop()
	select {
	case r := <-inv.done:
		return r, nil
	case <-f.exited:
		return Result{}, fmt.Errorf("runtimeapi: %s exited during invocation %s", f.opts.Name, inv.id)
	case <-timer.C:
		return Result{}, fmt.Errorf("runtimeapi: %s: invocation %s timed out after %s", f.opts.Name, inv.id, f.opts.Timeout)
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// InvokeJSON marshals event, invokes, and unmarshals the response payload into out (when not nil).
// An invocation error is returned as an error.
func (f *Function) InvokeJSON(ctx context.Context, event, out any) (Result, error) {
	payload, ok := event.([]byte)
	if !ok {
		var err error
		if payload, err = json.Marshal(event); err != nil {
			return Result{}, err
		}
	}
	r, err := f.Invoke(ctx, payload)
	if err != nil {
		return r, err
	}
	if err := r.Err(); err != nil {
		return r, err
	}
	if out != nil {
		if err := json.Unmarshal(r.Payload, out); err != nil {
			return r, fmt.Errorf("runtimeapi: response %s: %w", r.Payload, err)
		}
	}
	return r, nil
}

// PeakRSS returns the process's peak resident memory so far, in bytes (VmHWM, Linux), or 0.
func (f *Function) PeakRSS() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(f.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// Stop ends the process (SIGTERM, then SIGKILL after 2 s, as Lambda's shutdown does) and the server.
func (f *Function) Stop() {
	if f.cmd != nil && f.cmd.Process != nil {
		_ = f.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-f.exited:
		case <-time.After(2 * time.Second):
			_ = f.cmd.Process.Kill()
			<-f.exited
		}
	}
	_ = f.srv.Close()
}

// serve is the Runtime API.
func (f *Function) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch {
	case r.Method == http.MethodGet && path == "invocation/next":
		f.next(w, r)
	case r.Method == http.MethodPost && path == "init/error":
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.initErr = r.Header.Get("Lambda-Runtime-Function-Error-Type") + " " + string(body)
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	case r.Method == http.MethodPost && strings.HasPrefix(path, "invocation/"):
		rest := strings.TrimPrefix(path, "invocation/")
		id, kind, _ := strings.Cut(rest, "/")
		f.answer(w, r, id, kind)
	default:
		http.NotFound(w, r)
	}
}

func (f *Function) next(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.firstNext.IsZero() {
		f.firstNext = time.Now()
		close(f.ready)
	}
	f.mu.Unlock()
	var inv *invocation
	select {
	case inv = <-f.queue:
	case <-r.Context().Done():
		return
	}
	inv.given = time.Now()
	f.mu.Lock()
	f.pending[inv.id] = inv
	f.mu.Unlock()
	deadline := inv.given.Add(f.opts.Timeout)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(deadline.UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:"+f.opts.Name)
	h.Set("Lambda-Runtime-Trace-Id", inv.trace)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload)
}

// answer records a response or an error of a pending invocation.
func (f *Function) answer(w http.ResponseWriter, r *http.Request, id, kind string) {
	f.mu.Lock()
	inv, ok := f.pending[id]
	if ok {
		delete(f.pending, id)
	}
	f.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"errorMessage":"unknown request id","errorType":"InvalidRequestID"}`))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	res := Result{RequestID: id, Duration: time.Since(inv.given), Trace: inv.trace}
	switch kind {
	case "response":
		res.Payload = body
	case "error":
		var e struct {
			Message string `json:"errorMessage"`
			Type    string `json:"errorType"`
		}
		if json.Unmarshal(body, &e) != nil {
			e.Message = string(bytes.TrimSpace(body))
		}
		res.ErrorType = cmp.Or(r.Header.Get("Lambda-Runtime-Function-Error-Type"), e.Type, "Unhandled")
		res.Error = e.Message
	default:
		w.WriteHeader(http.StatusNotFound)
		inv.done <- Result{RequestID: id, ErrorType: "Runtime.InvalidPath", Error: "unknown path " + kind}
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"status":"OK"}`))
	inv.done <- res
}
