package samtemplate_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/dev/samtemplate"
)

func loadRepoTemplate(t *testing.T) *samtemplate.Template {
	t.Helper()
	path, err := samtemplate.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := samtemplate.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func keys(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(parts, ",")
}

// indexSorts returns index name → range key attribute, with the projection checked against want.
func lsiSorts(t *testing.T, in *dynamodb.CreateTableInput) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, x := range in.LocalSecondaryIndexes {
		if got := aws.ToString(x.KeySchema[0].AttributeName); got != "pk" {
			t.Errorf("%s index %s hash key = %s; want pk", aws.ToString(in.TableName), aws.ToString(x.IndexName), got)
		}
		if x.Projection.ProjectionType != types.ProjectionTypeAll {
			t.Errorf("%s index %s projection = %s; want ALL", aws.ToString(in.TableName), aws.ToString(x.IndexName), x.Projection.ProjectionType)
		}
		out[aws.ToString(x.IndexName)] = aws.ToString(x.KeySchema[1].AttributeName)
	}
	return out
}

func TestRepoTemplateTables(t *testing.T) {
	tpl := loadRepoTemplate(t)
	tests := []struct {
		name   string
		lsis   map[string]string // index → sort key attribute
		gsis   map[string]string // index → "hash,range keys projection"
		stream types.StreamViewType
		ttl    string
		key    string // key schema when not pk:HASH,sk:RANGE
	}{
		{
			name: "VehiclesTable",
			lsis: map[string]string{
				"by_updated": "lsi_updated", "by_price": "lsi_price", "by_title": "lsi_title",
				"by_year": "lsi_year", "by_mileage": "lsi_mileage",
			},
			stream: types.StreamViewTypeNewAndOldImages,
		},
		{
			name:   "ClientsTable",
			lsis:   map[string]string{"by_updated": "lsi_updated", "by_name": "lsi_name"},
			stream: types.StreamViewTypeNewAndOldImages,
		},
		{
			name: "DealsTable",
			lsis: map[string]string{
				"by_updated": "lsi_updated", "by_value": "lsi_value", "by_title": "lsi_title", "by_close_date": "lsi_close",
			},
			stream: types.StreamViewTypeNewAndOldImages,
		},
		{
			name:   "ActivitiesTable",
			lsis:   map[string]string{"by_updated": "lsi_updated", "by_due": "lsi_due"},
			gsis:   map[string]string{"by_alarm": "alarm_day:HASH,alarm_key:RANGE KEYS_ONLY"},
			stream: types.StreamViewTypeNewAndOldImages,
		},
		{
			name:   "FinancialTable",
			lsis:   map[string]string{"by_updated": "lsi_updated", "by_due": "lsi_due", "by_amount": "lsi_amount"},
			gsis:   map[string]string{"by_alarm": "alarm_day:HASH,alarm_key:RANGE KEYS_ONLY"},
			stream: types.StreamViewTypeNewAndOldImages,
		},
		{
			name: "AccountsTable",
			lsis: map[string]string{},
			gsis: map[string]string{
				"by_team":   "team_id:HASH,key_id:RANGE ALL",
				"by_key_id": "key_id:HASH KEYS_ONLY",
			},
			ttl: "expires_at",
		},
		{
			name: "WebhooksTable",
			lsis: map[string]string{},
			gsis: map[string]string{"by_id": "webhook_id:HASH KEYS_ONLY"},
		},
		{
			name: "DeliveriesTable",
			lsis: map[string]string{},
			gsis: map[string]string{"by_webhook": "webhook_id:HASH,status_key:RANGE INCLUDE", "by_due": "sweep_key:HASH,due_at:RANGE INCLUDE"},
			ttl:  "expires_at",
			key:  "pk:HASH",
		},
		{
			name: "AuditTable",
			lsis: map[string]string{"by_actor": "lsi_actor", "by_action": "lsi_action"},
			gsis: map[string]string{"by_target": "gsi_target:HASH,sk:RANGE ALL"},
			ttl:  "expires_at",
		},
	}
	var names []string
	for _, tb := range tpl.Tables() {
		names = append(names, tb.LogicalID)
	}
	var want []string
	for _, tt := range tests {
		want = append(want, tt.name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("Tables() = %v; want %v", names, want)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, ok := tpl.Table(tt.name)
			if !ok {
				t.Fatalf("Table(%q) not found", tt.name)
			}
			in := tb.CreateTableInput("x-" + tt.name)
			if got := aws.ToString(in.TableName); got != "x-"+tt.name {
				t.Errorf("TableName = %q; want %q", got, "x-"+tt.name)
			}
			wantKey := "pk:HASH,sk:RANGE"
			if tt.key != "" {
				wantKey = tt.key
			}
			if got := keys(in.KeySchema); got != wantKey {
				t.Errorf("KeySchema = %s; want %s", got, wantKey)
			}
			if in.BillingMode != types.BillingModePayPerRequest {
				t.Errorf("BillingMode = %s; want PAY_PER_REQUEST", in.BillingMode)
			}
			if got := lsiSorts(t, in); !mapsEqual(got, tt.lsis) {
				t.Errorf("LSIs = %v; want %v", got, tt.lsis)
			}
			gsis := map[string]string{}
			for _, x := range in.GlobalSecondaryIndexes {
				gsis[aws.ToString(x.IndexName)] = keys(x.KeySchema) + " " + string(x.Projection.ProjectionType)
			}
			if tt.gsis == nil {
				tt.gsis = map[string]string{}
			}
			if !mapsEqual(gsis, tt.gsis) {
				t.Errorf("GSIs = %v; want %v", gsis, tt.gsis)
			}
			var stream types.StreamViewType
			if in.StreamSpecification != nil && aws.ToBool(in.StreamSpecification.StreamEnabled) {
				stream = in.StreamSpecification.StreamViewType
			}
			if stream != tt.stream {
				t.Errorf("stream = %q; want %q", stream, tt.stream)
			}
			if tb.TTLAttribute != tt.ttl {
				t.Errorf("TTLAttribute = %q; want %q", tb.TTLAttribute, tt.ttl)
			}
			// Every key attribute is defined, and nothing else (CloudFormation rejects both).
			defined := map[string]bool{}
			for _, a := range in.AttributeDefinitions {
				defined[aws.ToString(a.AttributeName)] = true
			}
			used := map[string]bool{}
			for _, ks := range allKeySchemas(in) {
				for _, k := range ks {
					used[aws.ToString(k.AttributeName)] = true
				}
			}
			if !mapsEqual(defined, used) {
				t.Errorf("AttributeDefinitions = %v; key attributes = %v", defined, used)
			}
		})
	}
}

func allKeySchemas(in *dynamodb.CreateTableInput) [][]types.KeySchemaElement {
	out := [][]types.KeySchemaElement{in.KeySchema}
	for _, x := range in.LocalSecondaryIndexes {
		out = append(out, x.KeySchema)
	}
	for _, x := range in.GlobalSecondaryIndexes {
		out = append(out, x.KeySchema)
	}
	return out
}

func mapsEqual[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRepoTemplateMatchesStorageDoc keeps template.yaml and docs/storage.md's index table in step.
func TestRepoTemplateMatchesStorageDoc(t *testing.T) {
	tpl := loadRepoTemplate(t)
	path, _ := samtemplate.Find(".")
	f, err := os.Open(filepath.Join(filepath.Dir(path), "docs", "storage.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// | vehicles | `by_updated` | `lsi_updated` | `updated_at` |
	row := regexp.MustCompile("^\\|\\s*(\\w+)\\s*\\|\\s*`(by_\\w+)`\\s*\\|\\s*`(lsi_\\w+)`\\s*\\|")
	doc := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			table := strings.ToUpper(m[1][:1]) + m[1][1:] + "Table"
			if doc[table] == nil {
				doc[table] = map[string]string{}
			}
			doc[table][m[2]] = m[3]
		}
	}
	if len(doc) != 6 {
		t.Fatalf("found index rows for %d tables in docs/storage.md; want 6 (the five resource tables and the audit table)", len(doc))
	}
	for table, want := range doc {
		tb, ok := tpl.Table(table)
		if !ok {
			t.Errorf("docs/storage.md names %s; template.yaml has no such table", table)
			continue
		}
		if got := lsiSorts(t, tb.CreateTableInput(table)); !mapsEqual(got, want) {
			t.Errorf("%s LSIs = %v; docs/storage.md says %v", table, got, want)
		}
	}
}

func TestRepoTemplateEnv(t *testing.T) {
	tpl := loadRepoTemplate(t)
	refs := map[string]string{
		"VehiclesTable": "p-VehiclesTable", "ClientsTable": "p-ClientsTable",
		"DealsTable": "p-DealsTable", "AccountsTable": "p-AccountsTable",
		"WebhooksTable": "p-WebhooksTable", "DeliveriesTable": "p-DeliveriesTable",
		"ActivitiesTable": "p-ActivitiesTable", "FinancialTable": "p-FinancialTable",
		"DeliveryQueue": "http://sqs/p-DeliveryQueue", "AuditTable": "p-AuditTable",
		"ConsoleUserPool": "us-east-1_pool", "ConsoleUserPoolClient": "client", "PhotosBucket": "p-photosbucket",
	}
	want := map[string]string{
		"VEHICLES_TABLE": "p-VehiclesTable", "CLIENTS_TABLE": "p-ClientsTable",
		"DEALS_TABLE": "p-DealsTable", "ACCOUNTS_TABLE": "p-AccountsTable", "LOG_LEVEL": "INFO",
		"WEBHOOKS_TABLE": "p-WebhooksTable", "DELIVERIES_TABLE": "p-DeliveriesTable",
		"ACTIVITIES_TABLE": "p-ActivitiesTable", "FINANCIAL_TABLE": "p-FinancialTable",
		"AUDIT_TABLE": "p-AuditTable",
	}
	got, err := tpl.GlobalEnv(refs)
	if err != nil {
		t.Fatalf("GlobalEnv: %v", err)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("GlobalEnv()[%s] = %q; want %q", k, got[k], v)
		}
	}
	fns := tpl.Functions()
	if !slices.Contains(fns, "VehiclesFunction") {
		t.Errorf("Functions() = %v; want VehiclesFunction among them", fns)
	}
	for _, fn := range fns {
		env, err := tpl.FunctionEnv(fn, refs)
		if err != nil {
			t.Errorf("FunctionEnv(%q): %v", fn, err)
			continue
		}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("FunctionEnv(%q)[%s] = %q; want %q", fn, k, env[k], v)
			}
		}
	}
	if _, err := tpl.Env(refs); err != nil {
		t.Errorf("Env: %v", err)
	}
	// The deliverer's CONSOLE_URL names the console's REST API, which has an address on AWS only:
	// the local stack sets it itself.
	if env, err := tpl.FunctionEnv("DelivererFunction", refs); err != nil || env["CONSOLE_URL"] != "" || env["ALERT_SENDER_EMAIL"] == "" {
		t.Errorf("FunctionEnv(DelivererFunction) = %v, %v; want its variables without CONSOLE_URL", env, err)
	}
	if _, err := tpl.GlobalEnv(nil); err == nil || !strings.Contains(err.Error(), "no local value for resource") {
		t.Errorf("GlobalEnv(nil) error = %v; want one about a resource without a local value", err)
	}
	if _, err := tpl.FunctionEnv("NoSuchFunction", refs); err == nil {
		t.Errorf("FunctionEnv(%q) error = nil; want one", "NoSuchFunction")
	}
}

const syntheticTemplate = `
Transform: AWS::Serverless-2016-10-31
Parameters:
  Stage: {Type: String, Default: dev}
  NoDefault: {Type: String}
Conditions:
  IsDev: !Equals [!Ref Stage, dev]
Globals:
  Function:
    Environment:
      Variables:
        LITERAL: plain
        NUMBER: 42
        STAGE: !Ref Stage
        LONG_REF: {Ref: Things}
        SUBBED: !Sub "${Stage}-${Things}-${!Literal}"
        SUB_LIST: !Sub ["${A}/${Stage}", {A: !Ref Things}]
Resources:
  Things:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: 5, WriteCapacityUnits: 2}
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
        - {AttributeName: n, AttributeType: N}
      KeySchema:
        - {AttributeName: id, KeyType: HASH}
      GlobalSecondaryIndexes:
        - IndexName: by_n
          KeySchema: [{AttributeName: n, KeyType: HASH}]
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [a, b]}
          ProvisionedThroughput: {ReadCapacityUnits: 1, WriteCapacityUnits: 1}
      TimeToLiveSpecification: {AttributeName: gone, Enabled: false}
      Tags: [{Key: k, Value: !Sub "${AWS::StackName}"}]
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          STAGE: overridden
          ARN: !GetAtt Things.Arn
  Other:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          CHOICE: !If [IsDev, a, b]
  Deliveries:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 60
      MessageRetentionPeriod: 345600
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt AaDeadLetters.Arn
        maxReceiveCount: 5
  AaDeadLetters:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
`

func TestParseSynthetic(t *testing.T) {
	tpl, err := samtemplate.Parse([]byte(syntheticTemplate))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	env, err := tpl.GlobalEnv(map[string]string{"Things": "local-things"})
	if err != nil {
		t.Fatalf("GlobalEnv: %v", err)
	}
	want := map[string]string{
		"LITERAL": "plain", "NUMBER": "42", "STAGE": "dev", "LONG_REF": "local-things",
		"SUBBED": "dev-local-things-${Literal}", "SUB_LIST": "local-things/dev",
	}
	if !mapsEqual(env, want) {
		t.Errorf("GlobalEnv() = %v; want %v", env, want)
	}

	tests := []struct {
		name    string
		fn      string
		wantErr string
	}{
		{name: "GetAtt is not resolvable locally", fn: "Fn", wantErr: "ARN: Fn::GetAtt"},
		{name: "If is not resolvable locally", fn: "Other", wantErr: "CHOICE: Fn::If"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tpl.FunctionEnv(tt.fn, map[string]string{"Things": "local-things"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("FunctionEnv(%q) error = %v; want one containing %q", tt.fn, err, tt.wantErr)
			}
		})
	}

	tb, ok := tpl.Table("Things")
	if !ok {
		t.Fatal(`Table("Things") not found`)
	}
	if tb.TTLAttribute != "" {
		t.Errorf("TTLAttribute = %q; want none (TTL disabled)", tb.TTLAttribute)
	}
	in := tb.CreateTableInput("n")
	if in.BillingMode != types.BillingModeProvisioned || aws.ToInt64(in.ProvisionedThroughput.ReadCapacityUnits) != 5 {
		t.Errorf("billing = %s %+v; want PROVISIONED with 5 RCU", in.BillingMode, in.ProvisionedThroughput)
	}
	g := in.GlobalSecondaryIndexes[0]
	if g.Projection.ProjectionType != types.ProjectionTypeInclude || !slices.Equal(g.Projection.NonKeyAttributes, []string{"a", "b"}) {
		t.Errorf("GSI projection = %+v; want INCLUDE [a b]", g.Projection)
	}
	if in.StreamSpecification != nil {
		t.Errorf("StreamSpecification = %+v; want none", in.StreamSpecification)
	}
	// Each call gives an independent value.
	in.KeySchema[0].AttributeName = aws.String("changed")
	if got := aws.ToString(tb.CreateTableInput("n").KeySchema[0].AttributeName); got != "id" {
		t.Errorf("after modifying a returned input, key = %q; want id", got)
	}

	qs := tpl.Queues()
	if len(qs) != 2 || qs[0].LogicalID != "AaDeadLetters" || qs[1].LogicalID != "Deliveries" {
		t.Fatalf("Queues() = %+v; want AaDeadLetters then Deliveries", qs)
	}
	if q := qs[1]; q.DeadLetterQueue != "AaDeadLetters" || q.MaxReceiveCount != 5 ||
		q.Attributes["VisibilityTimeout"] != "60" || q.Attributes["MessageRetentionPeriod"] != "345600" {
		t.Errorf("Queues()[1] = %+v; want redrive to AaDeadLetters after 5, visibility 60, retention 345600", q)
	}
}

func TestQueueOrder(t *testing.T) {
	// The dead-letter queue sorts after its source by name, and must still come first.
	tpl, err := samtemplate.Parse([]byte(`
Resources:
  A:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt Z.Arn, maxReceiveCount: 3}
  Z:
    Type: AWS::SQS::Queue
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var got []string
	for _, q := range tpl.Queues() {
		got = append(got, q.LogicalID)
	}
	if !slices.Equal(got, []string{"Z", "A"}) {
		t.Errorf("Queues() order = %v; want [Z A]", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
	}{
		{
			name:    "not YAML",
			yaml:    "Resources: [",
			wantErr: "yaml",
		},
		{
			name:    "no resources",
			yaml:    "Parameters: {}",
			wantErr: "Resources",
		},
		{
			name: "unknown table property",
			yaml: `
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      Frobnicate: true
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]`,
			wantErr: "Resources.T.Properties.Frobnicate",
		},
		{
			name: "intrinsic in a key schema",
			yaml: `
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: !Ref P, KeyType: HASH}]`,
			wantErr: "KeySchema[0].AttributeName: want a literal value, got Ref",
		},
		{
			name: "redrive to an unknown queue",
			yaml: `
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt Nope.Arn, maxReceiveCount: 3}`,
			wantErr: "dead-letter queue Nope",
		},
		{
			name: "redrive as a JSON string",
			yaml: `
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: '{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:1:d", "maxReceiveCount": 3}'`,
			wantErr: "RedrivePolicy",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := samtemplate.Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse() error = %v; want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "template.yaml"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := samtemplate.Find(sub)
	if want := filepath.Join(root, "template.yaml"); err != nil || got != want {
		t.Errorf("Find(%q) = %q, %v; want %q", sub, got, err, want)
	}
	if err := os.Remove(filepath.Join(root, "template.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := samtemplate.Find(sub); err == nil {
		t.Errorf("Find(%q) without template.yaml: error = nil; want one", sub)
	}
}

// The local stack gives each invocation of a poller's handler the deadline Lambda would.
func TestFunctionTimeout(t *testing.T) {
	tpl, err := samtemplate.Parse([]byte(`
Globals:
  Function:
    Timeout: 10
Resources:
  Own:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 60
  Inherited:
    Type: AWS::Serverless::Function
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want time.Duration
	}{{"Own", time.Minute}, {"Inherited", 10 * time.Second}} {
		if got, err := tpl.FunctionTimeout(tc.name); err != nil || got != tc.want {
			t.Errorf("FunctionTimeout(%q) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := tpl.FunctionTimeout("Missing"); err == nil {
		t.Errorf("FunctionTimeout(%q) = nil error; want one", "Missing")
	}
}

// The dispatcher's and the indexer's stream event sources read only the records' own rows, and the
// local stack's pollers learn the same filters from the template.
func TestStreamFilters(t *testing.T) {
	tpl := loadRepoTemplate(t)
	got, err := tpl.StreamFilters("DispatcherFunction")
	if err != nil {
		t.Fatal(err)
	}
	for table, prefix := range map[string]string{"VehiclesTable": "v#", "ClientsTable": "c#", "DealsTable": "d#",
		"ActivitiesTable": "a#", "FinancialTable": "f#"} {
		if len(got[table]) != 1 || !strings.Contains(got[table][0], `{"prefix": "`+prefix+`"}`) || !strings.Contains(got[table][0], `"MODIFY"`) {
			t.Errorf("StreamFilters(DispatcherFunction)[%s] = %q; want a pattern of the %s rows, inserted or modified", table, got[table], prefix)
		}
	}
	// The indexer reads the rows of the kinds with words, removals included: its patterns name the
	// key's prefix alone.
	idx, err := tpl.StreamFilters("IndexerFunction")
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 3 {
		t.Errorf("StreamFilters(IndexerFunction) = %v; want the vehicles, clients and deals tables alone", idx)
	}
	for table, prefix := range map[string]string{"VehiclesTable": "v#", "ClientsTable": "c#", "DealsTable": "d#"} {
		want := `{"dynamodb": {"Keys": {"sk": {"S": [{"prefix": "` + prefix + `"}]}}}}`
		if len(idx[table]) != 1 || idx[table][0] != want {
			t.Errorf("StreamFilters(IndexerFunction)[%s] = %q; want [%s] (the rows, removals included)", table, idx[table], want)
		}
	}
	if _, err := tpl.StreamFilters("NoSuchFunction"); err == nil {
		t.Error("StreamFilters(NoSuchFunction) = nil error; want one")
	}
}
