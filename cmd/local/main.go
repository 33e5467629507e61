// Command local runs Patio on this machine, with DynamoDB Local and moto in place of AWS.
//
// Usage:
//
//	go run ./cmd/local [-fresh] [-faults spec]
//	go run ./cmd/local with-engines -- <command> [args...]
//	go run ./cmd/local [-faults spec] with-api -- <command> [args...]
//
// Without a subcommand it starts the engines with the database kept under .data/ (-fresh deletes
// it first), creates the tables, queues and user pool of template.yaml, serves the API (port 3000)
// and the console (port 3001) until SIGINT or SIGTERM, and then stops every engine. This is
// `make run`.
//
// with-engines starts the engines in memory on free ports, runs the command with the engines'
// AWS_ENDPOINT_URL_* variables and local credentials in its environment (no table names: tests
// create their own tables), stops the engines and exits with the command's status. This is how
// `make test` runs `go test`. It also sets PATIO_OWN_DYNAMODB, so that each test package starts a
// DynamoDB Local of its own (package testenv) and no package's load slows another's engine.
//
// with-api starts a whole stack in memory, as `make run` does but sharing nothing with it: the
// engines, the tables of template.yaml, a new team on the Autoshopping plan with a key and a console
// owner, the API and the console on free loopback ports and the webhook workers. It runs the command
// with PATIO_API_URL (the API's base URL, http://127.0.0.1:<port>), PATIO_API_KEY, PATIO_TEAM_ID,
// PATIO_CONSOLE_URL, PATIO_OWNER_EMAIL, PATIO_OWNER_PASSWORD and the stack's AWS environment, stops
// everything when the command ends and exits with the command's status. This is how `make test`
// and `make fuzz` run Schemathesis.
//
// -faults puts a fault injector (package faults) between the stack and its engines, with the spec
// in force from the start ("off" for none yet); the injector's control URL is printed and handed
// to the command as PATIO_FAULTS_URL, to change the faults while the stack runs.
//
// Engine output goes to .data/engines.log (.data/test-engines.log for with-engines,
// .data/api-engines.log for with-api).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/dev/testenv"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fresh := fs.Bool("fresh", false, "delete the local database (.data/dynamodb) before starting")
	calls := fs.Duration("calls", 0, "print the AWS calls of the API, the console, the pollers and the workers every `interval` (e.g. 10s): the stack's profile")
	fs.StringVar(&faultSpec, "faults", "", "inject AWS's failures between the stack and its engines: a `spec` such as 'dynamodb:throttle=10%,timeout-after=2%;sqs/SendMessage:throttle=100%', or off (see package dev/faults)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: local [-fresh]\n       local with-engines -- <command> [args...]\n"+
			"       local with-api -- <command> [args...]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := faults.Parse(faultSpec); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 2
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	switch rest := fs.Args(); {
	case len(rest) == 0:
		return serveLocal(root, *fresh, *calls)
	case rest[0] == "with-engines" || rest[0] == "with-api":
		cmd := rest[1:]
		if len(cmd) > 0 && cmd[0] == "--" {
			cmd = cmd[1:]
		}
		if len(cmd) == 0 {
			fs.Usage()
			return 2
		}
		if rest[0] == "with-api" {
			return withAPI(root, cmd)
		}
		return withEngines(root, cmd)
	default:
		fs.Usage()
		return 2
	}
}

func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	tpl, err := samtemplate.Find(wd)
	if err != nil {
		return "", err
	}
	return filepath.Dir(tpl), nil
}

// serveLocal is `make run`: persistent engines, tables, then serve until a signal.
func serveLocal(root string, fresh bool, callsEvery time.Duration) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = untilOrphaned(ctx)

	dataDir := filepath.Join(root, ".data")
	if fresh {
		if err := os.RemoveAll(filepath.Join(dataDir, "dynamodb")); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
			return 1
		}
	}
	logFile := filepath.Join(dataDir, "engines.log")
	st, err := localaws.Start(ctx, localaws.Options{Dir: root, DataDir: dataDir, LogFile: logFile})
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	code := 0
	defer func() {
		if err := st.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
		}
	}()
	closeFaults, err := injectFaults(st)
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer closeFaults()
	// serve builds its AWS clients from the environment, exactly as the Lambda functions do.
	if err := st.Setenv(); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "local: DynamoDB Local on %s (data in %s), moto on %s; engine logs in %s\n",
		st.DynamoDBEndpoint, filepath.Join(dataDir, "dynamodb"), st.MotoEndpoint, logFile)
	if err := serve(ctx, st, callsEvery); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "local:", err)
		code = 1
	}
	stop() // a second Ctrl-C while the engines stop ends this process at once
	fmt.Fprintln(os.Stderr, "local: stopping the engines")
	return code
}

// withEngines is `make test`: in-memory engines around one command.
func withEngines(root string, argv []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sup := supervise(cancel)
	defer sup.close()

	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 127
	}
	st, err := localaws.Start(ctx, localaws.Options{
		Dir:         root,
		LogFile:     filepath.Join(root, ".data", "test-engines.log"),
		EnginesOnly: true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer func() {
		if err := st.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
		}
	}()
	// Test packages start a DynamoDB Local of their own under this directory (see testenv).
	own, err := os.MkdirTemp(localaws.TempDir(), "patio-test-engines-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer os.RemoveAll(own)
	fmt.Fprintf(os.Stderr, "local: DynamoDB Local on %s, moto on %s\n", st.DynamoDBEndpoint, st.MotoEndpoint)
	return sup.run(ctx, path, argv[1:], append(st.Environ(os.Environ()), testenv.OwnEngineVar+"="+own))
}

// withAPI is `make fuzz`: a whole in-memory stack, served on a free port, around one command.
func withAPI(root string, argv []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sup := supervise(cancel)
	defer sup.close()

	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 127
	}
	st, err := localaws.Start(ctx, localaws.Options{Dir: root, LogFile: filepath.Join(root, ".data", "api-engines.log")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer func() {
		if err := st.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
		}
	}()
	closeFaults, err := injectFaults(st)
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer closeFaults()
	localstack.LocalEnv(st)
	if err := st.Setenv(); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	// The pollers and the servers stop before the engines do (deferred calls run in reverse).
	workers, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	s, err := localstack.Start(workers, localstack.Options{Tables: st.Tables, APIAddr: "127.0.0.1:0", Dir: root,
		ConsoleAddr: "127.0.0.1:0", API: envelopeWrap})
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	defer func() {
		if err := s.Shutdown(); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
		}
	}()
	creds, err := s.NewTeam(ctx, "Local dealership", "dev@patio.local")
	if err == nil {
		creds.OwnerPassword, err = s.Owner(ctx, creds.TeamID, localOwner, "")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "local: the API on %s and the console on %s (a new team on the Autoshopping plan), DynamoDB Local on %s, moto on %s\n",
		s.APIURL, s.ConsoleURL, st.DynamoDBEndpoint, st.MotoEndpoint)
	env := append(st.Environ(os.Environ()), "PATIO_API_URL="+s.APIURL, "PATIO_API_KEY="+creds.Key,
		"PATIO_CONSOLE_URL="+s.ConsoleURL, "PATIO_OWNER_EMAIL="+localOwner, "PATIO_OWNER_PASSWORD="+creds.OwnerPassword,
		"PATIO_TEAM_ID="+creds.TeamID)
	return sup.run(ctx, path, argv[1:], env)
}

// supervisor runs the one command of with-engines or with-api. Until the command runs, SIGINT and
// SIGTERM abort the start (they cancel its context); afterwards they are passed on to the
// command, which decides when to stop (a terminal's Ctrl-C reaches it directly as well).
type supervisor struct {
	mu     sync.Mutex
	child  *os.Process
	cancel context.CancelFunc
	sigs   chan os.Signal
}

func supervise(cancel context.CancelFunc) *supervisor {
	s := &supervisor{cancel: cancel, sigs: make(chan os.Signal, 4)}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range s.sigs {
			s.mu.Lock()
			if s.child != nil {
				_ = s.child.Signal(sig)
			} else {
				s.cancel()
			}
			s.mu.Unlock()
		}
	}()
	return s
}

// close stops relaying signals.
func (s *supervisor) close() { signal.Stop(s.sigs) }

// run runs path with args and env, connected to this process's standard streams, and returns its
// exit status (130 when the start was aborted first).
func (s *supervisor) run(ctx context.Context, path string, args, env []string) int {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	s.mu.Lock()
	if ctx.Err() != nil {
		s.mu.Unlock()
		return 130
	}
	err := cmd.Start()
	if err == nil {
		s.child = cmd.Process
	}
	s.mu.Unlock()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 126
	}
	return exitCode(cmd.Wait())
}

// exitCode turns Wait's result into a shell-style status: the command's own code, or 128+signal.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "local:", err)
		return 1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// untilOrphaned returns a context that also ends when this process's parent exits (make, killed
// without passing the signal on), so the stack never outlives the command that started it.
func untilOrphaned(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	ppid := os.Getppid()
	go func() {
		defer cancel()
		localaws.Tick(ctx, time.Second, func(time.Time) bool { return os.Getppid() == ppid })
	}()
	return ctx
}

// faultSpec is the -faults flag: "" runs the stack without an injector.
var faultSpec string

// injectFaults puts the injector of -faults in front of st's engines (nothing without the flag)
// and returns what stops it.
func injectFaults(st *localaws.Stack) (func(), error) {
	if faultSpec == "" {
		return func() {}, nil
	}
	spec, err := faults.Parse(faultSpec)
	if err != nil {
		return nil, err
	}
	inj, err := faults.Wrap(st, spec)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "local: faults %s; change them with curl -X PUT %s -d '<spec>'\n", spec, inj.ControlURL())
	return func() { _ = inj.Close() }, nil
}
