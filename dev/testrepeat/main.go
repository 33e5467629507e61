// Command testrepeat runs the integration packages (those whose tests use dev/testenv, so the
// local engines) several times, each run on fresh engines as `make test` starts them, and lists
// every test that failed in any run, with the runs it failed in and each package's time. It is
// `make test-repeat N=5`; it exits 1 when a test failed once.
//
//	go run ./dev/testrepeat -n 5 -local bin/local -- -race -count=1 -p 2 -timeout 15m
//
// The flags after -- are go test's.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

const testenv = "github.com/patio-dev/patio/dev/testenv"

func main() {
	n := flag.Int("n", 5, "how many runs")
	local := flag.String("local", "bin/local", "the local stack's command (cmd/local), which starts the engines of each run")
	flag.Parse()
	pkgs, err := integrationPackages()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrepeat:", err)
		os.Exit(2)
	}
	failed := map[string][]int{} // "package Test" → the runs it failed in
	for run := 1; run <= *n; run++ {
		fmt.Printf("testrepeat: run %d of %d, %d packages\n", run, *n, len(pkgs))
		start := time.Now()
		fails, err := runOnce(*local, flag.Args(), pkgs, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testrepeat:", err)
			os.Exit(2)
		}
		fmt.Printf("testrepeat: run %d took %s, %d failed\n", run, time.Since(start).Round(time.Second), len(fails))
		for _, f := range fails {
			failed[f] = append(failed[f], run)
		}
	}
	if len(failed) == 0 {
		fmt.Printf("testrepeat: no test failed in %d runs\n", *n)
		return
	}
	names := make([]string, 0, len(failed))
	for k := range failed {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Printf("testrepeat: %d tests failed at least once in %d runs:\n", len(names), *n)
	for _, k := range names {
		fmt.Printf("  %s: failed in run(s) %v\n", k, failed[k])
	}
	os.Exit(1)
}

// integrationPackages lists the module's packages whose tests import dev/testenv.
func integrationPackages() ([]string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && slices.Contains(f[1:], testenv) {
			pkgs = append(pkgs, f[0])
		}
	}
	return pkgs, nil
}

// event is one line of `go test -json` (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// runOnce runs go test once on fresh engines and returns the tests that failed ("package Test",
// or "package" when the package failed outside any test: a build error, a timeout).
func runOnce(local string, testFlags, pkgs []string, w io.Writer) ([]string, error) {
	args := append([]string{"with-engines", "--", "go", "test", "-json"}, testFlags...)
	cmd := exec.Command(local, append(args, pkgs...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var fails []string
	testFailed := map[string]bool{}
	out := map[string][]string{} // package → its output, shown when it fails
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		if e.Action == "output" {
			out[e.Package] = append(out[e.Package], e.Output)
			continue
		}
		if e.Test != "" {
			if e.Action == "fail" {
				fails = append(fails, e.Package+" "+e.Test)
				testFailed[e.Package] = true
			}
			continue
		}
		switch e.Action {
		case "pass":
			fmt.Fprintf(w, "ok   %s %.1fs\n", e.Package, e.Elapsed)
		case "fail":
			fmt.Fprintf(w, "FAIL %s %.1fs\n%s", e.Package, e.Elapsed, strings.Join(out[e.Package], ""))
			if !testFailed[e.Package] {
				fails = append(fails, e.Package)
			}
		}
		delete(out, e.Package)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, err
	}
	return fails, nil
}
