package localaws_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/dev/localaws"
)

// start starts a stack, skipping the test (failing it under CI=true) when the engines are not
// installed.
func start(t *testing.T, o localaws.Options) *localaws.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := localaws.Start(ctx, o)
	if err != nil {
		if strings.Contains(err.Error(), "make tools") && os.Getenv("CI") != "true" {
			t.Skipf("engines not installed: %v", err)
		}
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = st.Stop() })
	return st
}

func client(st *localaws.Stack) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:                          st.Env["AWS_REGION"],
		BaseEndpoint:                    aws.String(st.Env["AWS_ENDPOINT_URL_DYNAMODB"]),
		Credentials:                     credentials.NewStaticCredentialsProvider(st.Env["AWS_ACCESS_KEY_ID"], st.Env["AWS_SECRET_ACCESS_KEY"], ""),
		DisableValidateResponseChecksum: true,
	})
}

// enginePIDs lists the pids of processes whose command line mentions marker.
func enginePIDs(t *testing.T, marker string) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestStartPersistsAndStops(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to look for leftover processes")
	}
	dataDir := t.TempDir()
	o := localaws.Options{DataDir: dataDir, LogFile: filepath.Join(dataDir, "engines.log"), TablePrefix: "lt-"}
	st := start(t, o)

	for _, k := range []string{
		"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_S3",
		"AWS_ENDPOINT_URL_SES", "AWS_ENDPOINT_URL_SESV2", "AWS_ENDPOINT_URL_API_GATEWAY",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION",
	} {
		if st.Env[k] == "" {
			t.Errorf("Env[%s] is empty", k)
		}
	}
	if got, want := st.Env["VEHICLES_TABLE"], "lt-VehiclesTable"; got != want {
		t.Errorf("Env[VEHICLES_TABLE] = %q; want %q", got, want)
	}
	if got, want := st.Tables["AccountsTable"], "lt-AccountsTable"; got != want {
		t.Errorf("Tables[AccountsTable] = %q; want %q", got, want)
	}

	ctx := context.Background()
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "team#persisted"},
		"sk": &types.AttributeValueMemberS{Value: "team"},
	}
	if _, err := client(st).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(st.Tables["AccountsTable"]), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	if err := st.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if pids := enginePIDs(t, dataDir); len(pids) > 0 {
		t.Errorf("after Stop, processes %v still mention %s", pids, dataDir)
	}
	if _, err := client(st).ListTables(ctx, &dynamodb.ListTablesInput{}, func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }); err == nil {
		t.Errorf("ListTables after Stop succeeded; want the engine gone")
	}

	// A second start on the same data directory finds the item again.
	st2 := start(t, o)
	got, err := client(st2).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st2.Tables["AccountsTable"]), Key: item, ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item == nil {
		t.Errorf("GetItem after restart = %v, %v; want the item persisted", got, err)
	}
}

func TestStartEnginesOnly(t *testing.T) {
	st := start(t, localaws.Options{EnginesOnly: true})
	if len(st.Tables) != 0 {
		t.Errorf("Tables = %v; want none", st.Tables)
	}
	if _, ok := st.Env["VEHICLES_TABLE"]; ok {
		t.Errorf("Env has VEHICLES_TABLE; want no table variables with EnginesOnly")
	}
	out, err := client(st).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Errorf("ListTables on a fresh in-memory engine = %v, %v; want no tables", out, err)
	}

	env := st.Environ([]string{"HOME=/root", "AWS_PROFILE=prod", "AWS_SESSION_TOKEN=x", "AWS_REGION=sa-east-1"})
	want := []string{"HOME=/root", "AWS_REGION=" + localaws.Region, "AWS_ENDPOINT_URL_DYNAMODB=" + st.DynamoDBEndpoint}
	for _, kv := range want {
		if !slices.Contains(env, kv) {
			t.Errorf("Environ() = %v; want it to contain %q", env, kv)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "AWS_PROFILE=") || strings.HasPrefix(kv, "AWS_SESSION_TOKEN=") || kv == "AWS_REGION=sa-east-1" {
			t.Errorf("Environ() kept %q; want the caller's AWS_* variables dropped", kv)
		}
	}
}

func TestStartMissingTools(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte("Resources: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := localaws.Start(context.Background(), localaws.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "DynamoDB Local not found") || !strings.Contains(err.Error(), "make tools") {
		t.Errorf("Start without tools: error = %v; want one naming DynamoDB Local and `make tools`", err)
	}
}
