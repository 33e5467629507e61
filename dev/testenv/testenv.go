// Package testenv connects integration tests to the local engines that `make test` starts
// (`go run ./cmd/local with-engines -- go test ./...`), which hands them over through the standard
// AWS_ENDPOINT_URL_* variables: tests reach DynamoDB Local exactly as the functions reach DynamoDB.
//
// Without an engine a test is skipped with a note on how to run it, except under CI=true, where it
// fails: CI never skips integration tests silently.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app/awsconfig"
)

const endpointVar = "AWS_ENDPOINT_URL_DYNAMODB"

var (
	cfgOnce sync.Once
	cfg     aws.Config
	cfgErr  error

	tablesOnce sync.Once
	tables     map[string]string
	tablesErr  error
)

// AWSConfig returns the default AWS configuration (from the environment) once DynamoDB Local at
// AWS_ENDPOINT_URL_DYNAMODB has answered. When the variable is unset or the engine does not
// answer, it skips the test, or fails it under CI=true.
func AWSConfig(t testing.TB) aws.Config {
	t.Helper()
	cfgOnce.Do(func() { cfg, cfgErr = connect() })
	if cfgErr != nil {
		unavailable(t, cfgErr)
	}
	return cfg
}

// Tables provisions, once per test binary (so once per package), a fresh set of every table and
// queue of template.yaml under a random prefix (see samtemplate.Provision), and returns logical id →
// table name (e.g. "VehiclesTable" → "t1a2b3c4-VehiclesTable"). It also sets, with os.Setenv, the
// variables the template gives the functions (VEHICLES_TABLE, DELIVERY_QUEUE_URL, LOG_LEVEL and
// the like), so code that reads its configuration from the environment finds these tables and
// queues. The tables and queues live in the in-memory engines and are not deleted. Errors, moto
// missing (AWS_ENDPOINT_URL_SQS unset) among them, fail the test; a missing DynamoDB Local is
// handled as in AWSConfig.
func Tables(t testing.TB) map[string]string {
	t.Helper()
	c := AWSConfig(t)
	tablesOnce.Do(func() { tables, tablesErr = provision(c) })
	if tablesErr != nil {
		t.Fatalf("testenv: %v", tablesErr)
	}
	return maps.Clone(tables)
}

// OwnEngineVar, when set (by `go run ./cmd/local with-engines`, to a directory it removes at its
// end), gives each test binary, so each package, a DynamoDB Local of its own, started at its first
// use of the engines with its files under that directory: one package's load (writers racing on
// one record, webhook pipelines polling their streams) never slows another's engine, whose work
// runs on one thread. moto stays shared.
const OwnEngineVar = "PATIO_OWN_DYNAMODB"

func connect() (aws.Config, error) {
	if dir := os.Getenv(OwnEngineVar); dir != "" && os.Getenv(endpointVar) != "" {
		if err := ownEngine(dir); err != nil {
			return aws.Config{}, err
		}
	}
	endpoint := os.Getenv(endpointVar)
	if endpoint == "" {
		return aws.Config{}, fmt.Errorf("%s is not set", endpointVar)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The functions' own configuration (logger, HTTP client), so tests see what production sees.
	c, err := awsconfig.Load(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	if _, err := dynamodb.NewFromConfig(c).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
		return aws.Config{}, fmt.Errorf("DynamoDB Local at %s does not answer: %w", endpoint, err)
	}
	return c, nil
}

// ownEngine starts this process's DynamoDB Local under dir and points the SDK's variables at it.
// The engine is stopped by the kernel when this process ends (localaws starts it with a parent
// death signal, which follows the thread that started it): it is started from a goroutine that
// keeps its thread for the rest of the process.
func ownEngine(dir string) error {
	type started struct {
		st  *localaws.Stack
		err error
	}
	ch := make(chan started)
	go func() {
		runtime.LockOSThread()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		st, err := localaws.Start(ctx, localaws.Options{EnginesOnly: true, DynamoDBOnly: true, TempDir: dir})
		cancel()
		ch <- started{st, err}
		select {} // the thread stays, and with it the engine, until the process ends
	}()
	s := <-ch
	if s.err != nil {
		return fmt.Errorf("a DynamoDB Local of this package's own: %w", s.err)
	}
	for k, v := range s.st.Env {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("testenv: integration engine unavailable under CI=true: %v", err)
	}
	t.Skipf("testenv: integration test skipped: %v; run `make test` (or `go run ./cmd/local with-engines -- go test ./...`)", err)
}

func provision(c aws.Config) (map[string]string, error) {
	tpl, _, err := samtemplate.LoadModule()
	if err != nil {
		return nil, err
	}
	// Without its endpoint, an SQS client would reach for AWS itself.
	if os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		return nil, errors.New("AWS_ENDPOINT_URL_SQS is not set: the template's queues need moto; run `make test`")
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := "t" + hex.EncodeToString(b[:]) + "-"
	res, err := samtemplate.Provision(ctx, dynamodb.NewFromConfig(c), sqs.NewFromConfig(c), tpl, prefix)
	if err != nil {
		return nil, err
	}
	for k, v := range res.Env {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	return res.Tables, nil
}

// StreamIndexer is what Index drives: the store's indexer of what writes leave to the streams
// (dynamostore.Indexer.Index).
type StreamIndexer interface {
	Index(ctx context.Context, recs []events.DynamoDBEventRecord) error
}

var (
	wordsOnce   sync.Once
	wordsReader *localaws.StreamReader
)

// Index does, once, what the indexer function does in the background: it hands x every
// record of the vehicles, clients and deals tables' streams written since the test binary's
// previous call, and returns when x has handled them all. A test calls it after its writes and
// before a list that reads what the indexer keeps (q, a vehicle's brand, a deal's client) and must
// find them, as it would wait for the indexer's lag on AWS, but for exactly its writes' records,
// never a fixed time. x's failure fails the test.
func Index(t testing.TB, x StreamIndexer) {
	t.Helper()
	names := Tables(t)
	wordsOnce.Do(func() {
		wordsReader = localaws.NewStreamReader(AWSConfig(t), names["VehiclesTable"], names["ClientsTable"], names["DealsTable"])
	})
	err := wordsReader.CatchUp(context.Background(), func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, x.Index(ctx, ev.Records)
	})
	if err != nil {
		t.Fatalf("testenv: index: %v", err)
	}
}
