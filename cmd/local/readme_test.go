package main

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/docblocks"
	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/testenv"
)

// TestREADME runs the README's shell examples, in order, against a fresh local stack, as a reader
// following it would, and checks what each example says it answers. Editing the README is enough
// to change what runs. The conventions (also in the README's "Contributing" notes):
//
//   - Every ```sh block runs, in the order of the file, in one bash session (variables set by one
//     block are seen by the next), from the repository's root. A block whose fence says
//     ```sh no-run (the make targets, a deployment) is shown, not run; other languages (```console,
//     ```json, ```text) never run. No heredocs.
//   - A command is a line, with its continuation lines (a trailing backslash, or an open quote).
//     Its result is the comment at the end of its last line and the comment lines right below it;
//     a comment line after a blank line, or before the block's first command, is prose.
//   - A result is checked for what it states: a status (a 3-digit number opening it, or after
//     "HTTP/1.1"), error codes (DUPLICATE_ENTRY), "field":value pairs with a whole value (found
//     anywhere in the JSON answer; "$D" in a value is the shell's $D) and "Header-Name: value"
//     pairs. A curl answer whose status the result does not state must be 2xx; every command must
//     exit 0.
//   - The blocks of the sections in readmeRunTwice run a second time at the end: they must hold
//     however often a reader repeats them.
//   - Placeholders, <...>, are filled as a reader would fill them (see readmeRun.fill): ids from
//     the answers that created the records, the ETag read just before, the next_cursor of the last
//     list. http://127.0.0.1:3000 (make run's address) is replaced by the test stack's.
func TestREADME(t *testing.T) {
	testenv.AWSConfig(t) // the engines are installed (skipped without them, failed under CI=true)
	for _, tool := range []string{"bash", "curl", "go"} {
		requireTool(t, tool)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Read(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}

	recv := newHookReceiver(t)
	stack := startReadmeStack(t, root)
	sh := newShell(t, root, stack.env)
	run := &readmeRun{t: t, sh: sh, apiURL: stack.url, apiKey: stack.key, receiverURL: recv.srv.URL + "/hooks",
		ids: map[string]string{}}
	ran, again := 0, 0
	for _, b := range blocks {
		if b.Lang != "sh" || b.Has("no-run") {
			continue
		}
		for _, c := range splitCommands(b) {
			run.command(c)
			ran++
			if t.Failed() {
				t.FailNow() // what follows depends on this command's effects
			}
		}
	}
	// A reader retries these: they must hold the second time as well, after everything else.
	for _, b := range blocks {
		if b.Lang == "sh" && !b.Has("no-run") && slices.Contains(readmeRunTwice, b.Section) {
			for _, c := range splitCommands(b) {
				run.command(c)
				again++
			}
		}
	}
	if again == 0 {
		t.Errorf("README.md has no sh block under %q, which a reader runs twice", readmeRunTwice)
	}
	if ran < 20 {
		t.Errorf("ran %d commands of README.md; the walk-through has more: is the extraction broken?", ran)
	}
	if got := recv.count(); got == 0 {
		t.Errorf("the README's webhook receiver got no delivery (webhooks test should have sent one)")
	}
}

// readmeRunTwice are the README sections whose examples run a second time, after the whole
// walk-through: the retries and conditional requests a reader repeats.
var readmeRunTwice = []string{"Safe retries and concurrent edits"}

// requireTool skips the test when a command is missing, or fails it under CI=true.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s is not installed: %v", name, err)
	}
}

// hookReceiver is the HTTPS receiver the README's webhook examples point at: it answers 200.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	n   int
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.n++
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	// The local stack trusts it through WEBHOOK_CA_FILE, as the README tells a developer to.
	ca := filepath.Join(t.TempDir(), "receiver-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEBHOOK_CA_FILE", ca)
	return r
}

func (r *hookReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// readmeStack is a whole local stack, as `bin/local with-api` starts it.
type readmeStack struct {
	url, key string
	env      []string // the stack's environment for commands (the operators' tool finds its tables there)
}

// startReadmeStack starts the engines, the tables, the API on a free port and the webhook workers,
// as with-api does, and stops them when the test ends. The stack's variables are set in this
// process only for the test's duration.
func startReadmeStack(t *testing.T, root string) readmeStack {
	t.Helper()
	t.Setenv("LOG_LEVEL", "WARN")
	ctx, cancel := context.WithCancel(context.Background())
	st, err := localaws.Start(ctx, localaws.Options{Dir: root, LogFile: filepath.Join(root, ".data", "readme-engines.log")})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := st.Stop(); err != nil {
			t.Errorf("stop the engines: %v", err)
		}
	})
	localstack.LocalEnv(st)
	// st.Setenv, undone when the test ends.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	for k, v := range st.Env {
		t.Setenv(k, v)
	}
	// The stream poller keeps its checkpoints under .data of the working directory: not this
	// package's, nor a developer's stack's.
	t.Chdir(t.TempDir())
	workers, stopWorkers := context.WithCancel(ctx)
	a, err := localstack.Start(workers, localstack.Options{Tables: st.Tables, APIAddr: "127.0.0.1:0", API: envelopeWrap, Dir: root})
	if err != nil {
		stopWorkers()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(); err != nil {
			t.Errorf("stop the API: %v", err)
		}
		stopWorkers()
	})
	creds, err := a.NewTeam(ctx, "Local dealership", "dev@patio.local")
	if err != nil {
		t.Fatal(err)
	}
	return readmeStack{url: a.APIURL, key: creds.Key, env: st.Environ(os.Environ())}
}

// readmeCommand is one command of a README block and the result its comments state.
type readmeCommand struct {
	line   int // README line of its first line
	text   string
	result string
}

// splitCommands cuts a block into commands (see TestREADME for the rules).
func splitCommands(b docblocks.Block) []readmeCommand {
	var (
		out     []readmeCommand
		cur     []string
		start   int
		single  bool
		double  bool
		attach  = false // a comment line below belongs to the last command
		pending string  // the trailing comment of the command being read
	)
	for i, line := range strings.Split(strings.TrimSuffix(b.Code, "\n"), "\n") {
		code, comment, continued := scanLine(maskPlaceholders(line), &single, &double)
		code = line[:len(code)] // the masked line has the same length
		if comment != "" {
			comment = strings.TrimSpace(line[len(line)-len(comment):])
		}
		inCommand := len(cur) > 0
		if !inCommand && strings.TrimSpace(code) == "" {
			switch {
			case comment != "" && attach:
				last := &out[len(out)-1]
				last.result = strings.TrimSpace(last.result + " " + comment)
			case comment == "":
				attach = false
			}
			continue
		}
		if !inCommand {
			start = b.Line + i
		}
		cur = append(cur, code)
		if comment != "" {
			pending = comment
		}
		if continued || single || double {
			continue
		}
		out = append(out, readmeCommand{line: start, text: strings.Join(cur, "\n"), result: pending})
		cur, pending, attach = nil, "", true
	}
	if len(cur) > 0 { // an open quote or a trailing backslash: bash reports it
		out = append(out, readmeCommand{line: start, text: strings.Join(cur, "\n"), result: pending})
	}
	return out
}

// maskPlaceholders hides the quotes and hashes of placeholders: a quote inside <your receiver's
// https URL> is the reader's text, not the shell's.
func maskPlaceholders(line string) string {
	return placeholder.ReplaceAllStringFunc(line, func(m string) string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune(`'"#\`, r) {
				return '_'
			}
			return r
		}, m)
	})
}

// scanLine splits a line into its code and its comment (what follows the #), tracking quotes across lines. continued
// reports a trailing backslash outside quotes.
func scanLine(line string, single, double *bool) (code, comment string, continued bool) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case *single:
			if c == '\'' {
				*single = false
			}
		case c == '\\':
			if i == len(line)-1 && !*double {
				return line[:i+1], "", true
			}
			i++
		case *double:
			if c == '"' {
				*double = false
			}
		case c == '\'':
			*single = true
		case c == '"':
			*double = true
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimRight(line[:i], " \t"), line[i+1:], false
		}
	}
	return line, "", false
}

// readmeRun is the state of a run through the README: what a reader has seen so far.
type readmeRun struct {
	t                           *testing.T
	sh                          *shell
	apiURL, apiKey, receiverURL string
	ids                         map[string]string // "vehicle id" → the last vehicle created, ...
	etag                        string            // the last ETag answered
	list                        map[string]any    // the last list answer
}

var placeholder = regexp.MustCompile(`<([^<>\s][^<>\n]*)>`)

// fill returns what a reader puts in place of a placeholder: the ones a README example may use.
func (r *readmeRun) fill(name string) (string, error) {
	switch name {
	case "the key make run printed":
		return r.apiKey, nil
	case "your receiver's https URL":
		return r.receiverURL, nil
	case "the ETag just read":
		if r.etag == "" {
			return "", fmt.Errorf("no answer carried an ETag yet")
		}
		return r.etag, nil
	case "next_cursor":
		p, _ := r.list["pagination"].(map[string]any)
		c, _ := p["next_cursor"].(string)
		if c == "" {
			return "", fmt.Errorf("the last list answer has no next_cursor (%v)", p)
		}
		return c, nil
	case "the last updated_at you saw, minus 10 s":
		var last time.Time
		items, _ := r.list["data"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			s, _ := m["updated_at"].(string)
			if u, err := time.Parse(time.RFC3339, s); err == nil && u.After(last) {
				last = u
			}
		}
		if last.IsZero() {
			return "", fmt.Errorf("the last list answer has no updated_at")
		}
		return last.Add(-10 * time.Second).UTC().Format(time.RFC3339), nil
	}
	if id, ok := r.ids[name]; ok {
		return id, nil
	}
	return "", fmt.Errorf("no value for <%s> yet: a command must create it first, or readmeRun.fill must learn it", name)
}

// command runs one README command and checks its stated result.
func (r *readmeRun) command(c readmeCommand) {
	t := r.t
	t.Helper()
	where := fmt.Sprintf("README.md:%d", c.line)
	text := strings.ReplaceAll(c.text, "http://127.0.0.1:3000", r.apiURL)
	var fillErr error
	text = placeholder.ReplaceAllStringFunc(text, func(m string) string {
		v, err := r.fill(m[1 : len(m)-1])
		if err != nil && fillErr == nil {
			fillErr = fmt.Errorf("%s", err)
		}
		return v
	})
	if fillErr != nil {
		t.Errorf("%s: %s\n%s", where, fillErr, c.text)
		return
	}
	res := r.sh.run(text)
	if testing.Verbose() {
		t.Logf("%s: %s\n  exit %d, stdout: %.500s\n  stderr: %.500s", where, text, res.status, res.stdout, res.stderr)
	}
	report := func(format string, args ...any) {
		t.Errorf("%s: %s\n  command: %s\n  result comment: %s\n  stdout: %.2000s\n  stderr: %.2000s",
			where, fmt.Sprintf(format, args...), text, c.result, res.stdout, res.stderr)
	}
	if res.status != 0 {
		report("exit status %d; want 0", res.status)
		return
	}
	body := decodeJSON(res.body())
	r.learn(text, res, body)

	want := parseResult(c.result)
	if len(res.answers) > 0 {
		last := res.answers[len(res.answers)-1]
		switch {
		case want.status != 0 && last.status != want.status:
			report("answered %d; the README says %d", last.status, want.status)
		case want.status == 0:
			for _, a := range res.answers {
				if a.status < 200 || a.status > 299 {
					report("answered %d; the README states no status, so 2xx is expected", a.status)
				}
			}
		}
		for name, v := range want.headers {
			if got := last.header.Get(name); got != v {
				report("header %s is %q; the README says %q", name, got, v)
			}
		}
	} else if want.status != 0 {
		report("the README states status %d but the command made no HTTP request", want.status)
	}
	for _, code := range want.codes {
		if !hasField(body, "code", code) {
			report("the answer has no error code %s", code)
		}
	}
	for _, f := range want.fields {
		v := f.value
		if s, ok := v.(string); ok && strings.Contains(s, "$") {
			v = r.sh.expand(s)
		}
		if !hasField(body, f.key, v) {
			report("the answer has no %q: %v", f.key, v)
		}
	}
}

var (
	apiCreate   = regexp.MustCompile(`/api/v1/(vehicles|clients|deals)$`)
	adminCreate = regexp.MustCompile(`(?s)go run \./cmd/admin (\w+) create\b.*--json`)
	deliveryID  = regexp.MustCompile(`dlv_[0-9a-f]{32}`)
	adminKinds  = map[string]string{"teams": "team", "keys": "key", "webhooks": "webhook", "activities": "activity", "financial": "record"}
)

// learn keeps what a reader would note from a command's output: the ids of what it created, the
// ETag it was answered, the last list.
func (r *readmeRun) learn(text string, res shellResult, body any) {
	m, _ := body.(map[string]any)
	for _, a := range res.answers {
		if e := a.header.Get("ETag"); e != "" {
			r.etag = e
		}
		if a.method == http.MethodPost && a.status == http.StatusCreated {
			if k := apiCreate.FindStringSubmatch(a.path); k != nil {
				if d, ok := m["data"].(map[string]any); ok {
					r.ids[strings.TrimSuffix(k[1], "s")+" id"], _ = d["id"].(string)
				}
			}
		}
	}
	if _, ok := m["pagination"]; ok {
		r.list = m
	}
	if k := adminCreate.FindStringSubmatch(text); k != nil && adminKinds[k[1]] != "" {
		if id, ok := m["id"].(string); ok {
			r.ids[adminKinds[k[1]]+" id"] = id
		}
	}
	if id := deliveryID.FindString(res.stdout); id != "" {
		r.ids["delivery id"] = id
	}
}

// readmeResult is what a result comment states.
type readmeResult struct {
	status  int
	codes   []string
	headers map[string]string
	fields  []readmeField
}

type readmeField struct {
	key   string
	value any
}

var (
	resultStatus  = regexp.MustCompile(`^(?:HTTP/[\d.]+ )?([1-5]\d\d)\b|HTTP/[\d.]+ ([1-5]\d\d)\b`)
	resultCode    = regexp.MustCompile(`\b[A-Z]+(?:_[A-Z]+)+\b`)
	resultHeader  = regexp.MustCompile(`\b([A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)+): ([^\s,…]+)`)
	resultField   = regexp.MustCompile(`"(\w+)":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)`)
	resultElision = regexp.MustCompile(`…|\.\.\.`)
)

func parseResult(s string) readmeResult {
	var r readmeResult
	if m := resultStatus.FindStringSubmatch(s); m != nil {
		fmt.Sscan(m[1]+m[2], &r.status)
	}
	r.codes = resultCode.FindAllString(s, -1)
	r.headers = map[string]string{}
	for _, m := range resultHeader.FindAllStringSubmatch(s, -1) {
		r.headers[m[1]] = m[2]
	}
	for _, m := range resultField.FindAllStringSubmatch(s, -1) {
		if resultElision.MatchString(m[2]) {
			continue
		}
		var v any
		if json.Unmarshal([]byte(m[2]), &v) == nil {
			r.fields = append(r.fields, readmeField{key: m[1], value: v})
		}
	}
	return r
}

// hasField reports whether some object in v has key with the value want.
func hasField(v any, key string, want any) bool {
	switch v := v.(type) {
	case map[string]any:
		if got, ok := v[key]; ok && reflect.DeepEqual(got, want) {
			return true
		}
		for _, x := range v {
			if hasField(x, key, want) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, func(x any) bool { return hasField(x, key, want) })
	}
	return false
}

func decodeJSON(s string) any {
	var v any
	if json.NewDecoder(strings.NewReader(s)).Decode(&v) != nil {
		return nil
	}
	return v
}

// shell is one bash session that runs commands one at a time, as a terminal would. Its curl is a
// wrapper that records each answer's headers beside the command's own output.
type shell struct {
	t   *testing.T
	dir string
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

// answer is one HTTP answer curl received during a command.
type answer struct {
	method, path string
	status       int
	header       http.Header
}

type shellResult struct {
	status         int
	stdout, stderr string
	answers        []answer
}

// body is the command's stdout without the header blocks `curl -i` prints.
func (r shellResult) body() string {
	s := r.stdout
	for strings.HasPrefix(s, "HTTP/") {
		i := strings.Index(s, "\r\n\r\n")
		if i < 0 {
			return ""
		}
		s = s[i+4:]
	}
	return s
}

const shellMark = "__readme_command_done__"

func newShell(t *testing.T, root string, env []string) *shell {
	t.Helper()
	dir := t.TempDir()
	realCurl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	wrapper := `#!/bin/sh
h=$(mktemp "$README_CURL_DIR/answer.XXXXXX") || exit 1
printf '%s\0' "$@" > "$h.args"
` + shellQuote(realCurl) + ` -D "$h" "$@"
rc=$?
printf '%s\n' "$h" >> "$README_CURL_DIR/calls"
exit $rc
`
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	var path string
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
			return true
		}
		return false
	})
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+path, "README_CURL_DIR="+dir)
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir, cmd.Env = root, env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &shell{t: t, dir: dir, in: in, out: bufio.NewReader(out), cmd: cmd}
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// commandTimeout bounds one command: the first `go run ./cmd/admin` compiles the tool.
const commandTimeout = 5 * time.Minute

// run runs one command in the session and returns its status, output and HTTP answers.
func (s *shell) run(text string) shellResult {
	s.t.Helper()
	calls := filepath.Join(s.dir, "calls")
	_ = os.Remove(calls)
	outFile, errFile := filepath.Join(s.dir, "stdout"), filepath.Join(s.dir, "stderr")
	script := fmt.Sprintf("{ %s\n} >%s 2>%s </dev/null; printf '%s %%d\\n' \"$?\"\n", text, shellQuote(outFile), shellQuote(errFile), shellMark)
	if _, err := io.WriteString(s.in, script); err != nil {
		s.t.Fatalf("the shell stopped: %v", err)
	}
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		for {
			l, err := s.out.ReadString('\n')
			if err != nil || strings.HasPrefix(l, shellMark) {
				got <- line{l, err}
				return
			}
		}
	}()
	var res shellResult
	select {
	case l := <-got:
		if l.err != nil {
			s.t.Fatalf("the shell stopped: %v", l.err)
		}
		fmt.Sscan(strings.TrimPrefix(l.s, shellMark), &res.status)
	case <-time.After(commandTimeout):
		_ = s.cmd.Process.Kill()
		s.t.Fatalf("the command did not end within %s:\n%s", commandTimeout, text)
	}
	stdout, _ := os.ReadFile(outFile)
	stderr, _ := os.ReadFile(errFile)
	res.stdout, res.stderr = string(stdout), string(stderr)
	list, _ := os.ReadFile(calls)
	for _, h := range strings.Fields(string(list)) {
		res.answers = append(res.answers, readAnswer(s.t, h))
	}
	return res
}

// expand returns the value of a shell word such as "$D" in the session.
func (s *shell) expand(word string) string {
	res := s.run(`printf '%s' "` + strings.ReplaceAll(word, `"`, `\"`) + `"`)
	return res.stdout
}

// readAnswer reads what the curl wrapper recorded of one request: its arguments and the headers
// of its (last) answer.
func readAnswer(t *testing.T, file string) answer {
	t.Helper()
	var a answer
	args, err := os.ReadFile(file + ".args")
	if err != nil {
		t.Fatal(err)
	}
	data := false
	for _, arg := range strings.Split(strings.TrimSuffix(string(args), "\x00"), "\x00") {
		switch {
		case a.method == "-":
			a.method = arg
		case arg == "-X" || arg == "--request":
			a.method = "-"
		case arg == "-d" || strings.HasPrefix(arg, "--data"):
			data = true
		case strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://"):
			if i := strings.IndexAny(arg, "?#"); i >= 0 {
				arg = arg[:i]
			}
			if _, p, ok := strings.Cut(strings.SplitN(arg, "//", 2)[1], "/"); ok {
				a.path = "/" + p
			}
		}
	}
	if a.method == "" {
		a.method = http.MethodGet
		if data {
			a.method = http.MethodPost
		}
	}
	head, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(head), "\r\n", "\n")), "\n\n")
	lines := strings.Split(blocks[len(blocks)-1], "\n")
	fmt.Sscan(strings.Fields(lines[0] + " x 0")[1], &a.status)
	a.header = http.Header{}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ":"); ok {
			a.header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return a
}
