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
	"fmt"
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/dev/samtemplate"
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

// Tables creates, once per test binary (so once per package), a fresh set of every table of
// template.yaml under a random prefix, and returns logical id → table name
// (e.g. "VehiclesTable" → "t1a2b3c4-VehiclesTable"). When moto is there (AWS_ENDPOINT_URL_SQS) it
// creates the template's queues too, under the same prefix, so that the variables naming them
// (DELIVERY_QUEUE_URL) are set as well. It also sets, with os.Setenv, the variables the
// template gives the functions (VEHICLES_TABLE and the like, LOG_LEVEL), so code that reads its
// configuration from the environment finds these tables. The tables live in the in-memory engine and
// are not deleted. Errors fail the test; a missing engine is handled as in AWSConfig.
func Tables(t testing.TB) map[string]string {
	t.Helper()
	c := AWSConfig(t)
	tablesOnce.Do(func() { tables, tablesErr = createTables(c) })
	if tablesErr != nil {
		t.Fatalf("testenv: %v", tablesErr)
	}
	return maps.Clone(tables)
}

func connect() (aws.Config, error) {
	endpoint := os.Getenv(endpointVar)
	if endpoint == "" {
		return aws.Config{}, fmt.Errorf("%s is not set", endpointVar)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The functions' own configuration (logger, HTTP client), so tests see what production sees.
	c, err := app.LoadAWS(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	if _, err := dynamodb.NewFromConfig(c).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
		return aws.Config{}, fmt.Errorf("DynamoDB Local at %s does not answer: %w", endpoint, err)
	}
	return c, nil
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("testenv: integration engine unavailable under CI=true: %v", err)
	}
	t.Skipf("testenv: integration test skipped: %v; run `make test` (or `go run ./cmd/local with-engines -- go test ./...`)", err)
}

func createTables(c aws.Config) (map[string]string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	path, err := samtemplate.Find(wd)
	if err != nil {
		return nil, err
	}
	tpl, err := samtemplate.Load(path)
	if err != nil {
		return nil, err
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := dynamodb.NewFromConfig(c, func(o *dynamodb.Options) {
		// DynamoDB Local sends no X-Amz-Crc32 on error responses (DescribeTable of a missing
		// table); validating would only log spurious warnings (aws/aws-sdk-go-v2#3545).
		o.DisableValidateResponseChecksum = true
	})
	prefix := "t" + hex.EncodeToString(b[:]) + "-"
	names, err := samtemplate.CreateTables(ctx, client, tpl, prefix)
	if err != nil {
		return nil, err
	}
	// The template's queues, in moto, under the same prefix: functions' environments name them.
	refs := maps.Clone(names)
	if os.Getenv("AWS_ENDPOINT_URL_SQS") != "" {
		queues, err := samtemplate.CreateQueues(ctx, sqs.NewFromConfig(c), tpl, prefix)
		if err != nil {
			return nil, err
		}
		maps.Copy(refs, queues)
	}
	env, err := tpl.Env(refs)
	if err != nil {
		return nil, err
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	return names, nil
}
