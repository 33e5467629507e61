package localaws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// process is one engine running as a child in its own process group, so that Ctrl-C in the terminal
// reaches the stack first (which then stops the engines in order) and stopping kills everything the
// engine started.
type process struct {
	name string
	cmd  *exec.Cmd
	tail *tailBuffer
	done chan struct{} // closed once the process has exited
	err  error         // Wait's result, set before done closes
}

func startProcess(name, dir string, out io.Writer, argv ...string) (*process, error) {
	p := &process{name: name, tail: &tailBuffer{max: 4096}, done: make(chan struct{})}
	w := io.Writer(p.tail)
	if out != nil {
		w = io.MultiWriter(out, p.tail)
	}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = dir
	p.cmd.Stdin = nil
	p.cmd.Stdout = w
	p.cmd.Stderr = w
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("localaws: start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and waits for the exit.
func (p *process) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	pid := p.cmd.Process.Pid
	_ = killGroup(pid, syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := killGroup(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("localaws: kill %s (pid %d): %w", p.name, pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("localaws: %s (pid %d) did not exit after SIGKILL", p.name, pid)
	}
}

// waitReady polls ready until it succeeds, the process exits, ctx ends or timeout passes.
func (p *process) waitReady(ctx context.Context, timeout time.Duration, ready func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = ready(pctx)
		cancel()
		if last == nil {
			return nil
		}
		if p.exited() {
			return &exitedError{name: p.name, err: p.err, tail: p.tail.String()}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("localaws: %s did not answer within %s: %w%s", p.name, timeout, last, p.tail.excerpt())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// exitedError says an engine ended while starting, typically because its port was taken.
type exitedError struct {
	name string
	err  error
	tail string
}

func (e *exitedError) Error() string {
	return fmt.Sprintf("localaws: %s exited while starting (%v)%s", e.name, e.err, (&tailBuffer{b: []byte(e.tail)}).excerpt())
}

// freePort asks the kernel for a free loopback port. Another process may take it before the engine
// binds it; callers retry on an early exit.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("localaws: find a free port: %w", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// tailBuffer keeps the last max bytes written to it, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func (t *tailBuffer) excerpt() string {
	s := t.String()
	if s == "" {
		return ""
	}
	return "; its last output:\n" + s
}

// openLog opens path for the engines' output, truncating it, creating its directory.
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("localaws: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("localaws: %w", err)
	}
	return f, nil
}
