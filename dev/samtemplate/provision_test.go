package samtemplate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/dev/testenv"
)

func randomPrefix(t *testing.T) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "st" + hex.EncodeToString(b[:]) + "-"
}

// clients returns clients of DynamoDB Local and moto, skipping the test (failing it under CI=true)
// as testenv does when an engine is not there.
func clients(t *testing.T) (*dynamodb.Client, *sqs.Client) {
	t.Helper()
	cfg := testenv.AWSConfig(t)
	if os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		// Without its endpoint, the SQS client would reach for AWS itself.
		if os.Getenv("CI") == "true" {
			t.Fatal("AWS_ENDPOINT_URL_SQS is not set under CI=true")
		}
		t.Skip("AWS_ENDPOINT_URL_SQS is not set; run `make test`")
	}
	return dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
}

func TestProvision(t *testing.T) {
	client, queues := clients(t)
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := randomPrefix(t)

	res, err := samtemplate.Provision(ctx, client, queues, tpl, prefix)
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	names := res.Tables
	if got, want := len(names), len(tpl.Tables()); got != want {
		t.Errorf("Provision made %d tables; want %d", got, want)
	}
	for _, tb := range tpl.Tables() {
		t.Run(tb.LogicalID, func(t *testing.T) {
			name := names[tb.LogicalID]
			if want := prefix + tb.LogicalID; name != want {
				t.Fatalf("name = %q; want %q", name, want)
			}
			out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatalf("DescribeTable(%q): %v", name, err)
			}
			want := tb.CreateTableInput(name)
			d := out.Table
			if d.TableStatus != types.TableStatusActive {
				t.Errorf("status = %s; want ACTIVE", d.TableStatus)
			}
			if got, want := len(d.LocalSecondaryIndexes), len(want.LocalSecondaryIndexes); got != want {
				t.Errorf("%d LSIs; want %d", got, want)
			}
			if got, want := len(d.GlobalSecondaryIndexes), len(want.GlobalSecondaryIndexes); got != want {
				t.Errorf("%d GSIs; want %d", got, want)
			}
			if want.StreamSpecification != nil && (d.StreamSpecification == nil || d.StreamSpecification.StreamViewType != want.StreamSpecification.StreamViewType) {
				t.Errorf("stream = %+v; want %s", d.StreamSpecification, want.StreamSpecification.StreamViewType)
			}
			if tb.TTLAttribute != "" {
				ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
				if err != nil {
					t.Fatalf("DescribeTimeToLive: %v", err)
				}
				if got := ttl.TimeToLiveDescription; got.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(got.AttributeName) != tb.TTLAttribute {
					t.Errorf("TTL = %s on %q; want ENABLED on %q", got.TimeToLiveStatus, aws.ToString(got.AttributeName), tb.TTLAttribute)
				}
			}
		})
	}

	if got, want := len(res.Queues), len(tpl.Queues()); got != want {
		t.Errorf("Provision made %d queues; want %d", got, want)
	}
	for _, q := range tpl.Queues() {
		t.Run(q.LogicalID, func(t *testing.T) {
			url := res.Queues[q.LogicalID]
			if !strings.HasSuffix(url, "/"+prefix+q.LogicalID) {
				t.Fatalf("URL = %q; want one ending in /%s%s", url, prefix, q.LogicalID)
			}
			out, err := queues.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
				QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
			})
			if err != nil {
				t.Fatalf("GetQueueAttributes(%q): %v", url, err)
			}
			for k, want := range q.Attributes {
				if got := out.Attributes[k]; got != want {
					t.Errorf("attribute %s = %q; want %q", k, got, want)
				}
			}
			policy := out.Attributes[string(sqstypes.QueueAttributeNameRedrivePolicy)]
			if q.DeadLetterQueue != "" && !strings.Contains(policy, prefix+q.DeadLetterQueue) {
				t.Errorf("RedrivePolicy = %q; want one naming %s%s", policy, prefix, q.DeadLetterQueue)
			}
		})
	}

	// The environment names these tables and queues, as template.yaml's !Ref says.
	for k, want := range map[string]string{
		"VEHICLES_TABLE":     names["VehiclesTable"],
		"DELIVERIES_TABLE":   names["DeliveriesTable"],
		"DELIVERY_QUEUE_URL": res.Queues["DeliveryQueue"],
		"LOG_LEVEL":          "INFO",
	} {
		if got := res.Env[k]; got != want || got == "" {
			t.Errorf("Env[%s] = %q; want %q", k, got, want)
		}
	}

	// A second run keeps the existing tables and their items (the local stack's persistent data).
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "team#1"},
		"sk": &types.AttributeValueMemberS{Value: "team"},
	}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(names["AccountsTable"]), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	again, err := samtemplate.Provision(ctx, client, queues, tpl, prefix)
	if err != nil {
		t.Fatalf("Provision again: %v", err)
	}
	if !mapsEqual(again.Tables, res.Tables) || !mapsEqual(again.Queues, res.Queues) || !mapsEqual(again.Env, res.Env) {
		t.Errorf("Provision again = %+v; want %+v", again, res)
	}
	got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(names["AccountsTable"]), Key: item, ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item == nil {
		t.Errorf("GetItem after second Provision = %v, %v; want the item kept", got.Item, err)
	}
}

// A table of an older release, with the template's primary key but not its indexes or stream, is
// rebuilt with the template's schema; its items are kept, and copying them back fires no stream
// record (no webhook event). A table with another primary key is refused.
func TestProvisionRebuildsDriftedTable(t *testing.T) {
	client, queues := clients(t)
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := randomPrefix(t)
	table := aws.String(prefix + "VehiclesTable")
	createKeysTable(ctx, t, client, *table, "pk", "sk")
	item := map[string]types.AttributeValue{
		"pk":          &types.AttributeValueMemberS{Value: "team1"},
		"sk":          &types.AttributeValueMemberS{Value: "v#1"},
		"lsi_updated": &types.AttributeValueMemberS{Value: "ativo#1#2026-01-01T00:00:00Z\x011"},
		"brand":       &types.AttributeValueMemberS{Value: "Fiat"},
	}
	putItem(ctx, t, client, *table, item)
	if _, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil {
		t.Fatalf("Provision over an older table: %v", err)
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: table})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(desc.Table.LocalSecondaryIndexes); n != 5 || desc.Table.StreamSpecification == nil || !aws.ToBool(desc.Table.StreamSpecification.StreamEnabled) {
		t.Errorf("after Provision: %d local indexes, stream %+v; want the template's 5 and its stream", n, desc.Table.StreamSpecification)
	}
	out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: table, IndexName: aws.String("by_updated"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("pk = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "team1"}}})
	if err != nil || len(out.Items) != 1 {
		t.Errorf("Query by_updated after the rebuild = %v, %v; want the item stored before", out, err)
	}
	streams := dynamodbstreams.NewFromConfig(testenv.AWSConfig(t))
	sd, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: desc.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range sd.StreamDescription.Shards {
		it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: desc.Table.LatestStreamArn,
			ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs.Records) != 0 {
			t.Errorf("stream after the rebuild holds %d records; want none (copying items back is no change)", len(recs.Records))
		}
	}
	if again, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil || again.Tables["VehiclesTable"] != *table {
		t.Errorf("Provision again = %v; want the rebuilt table kept", err)
	}

	// Another primary key: the items could not be kept.
	other := randomPrefix(t)
	createKeysTable(ctx, t, client, other+"VehiclesTable", "id")
	_, err = samtemplate.Provision(ctx, client, queues, tpl, other)
	if err == nil || !strings.Contains(err.Error(), "another primary key") {
		t.Errorf("Provision over a table with another primary key: error = %v; want one about the primary key", err)
	}
}

// A rebuild interrupted once its items were whole in the holding table (its marker is there) is
// finished by the next Provision; one interrupted while copying into it (no marker) leaves the
// table untouched, and the half-copied holding table is dropped rather than restored over it.
func TestProvisionResumesInterruptedRebuild(t *testing.T) {
	client, queues := clients(t)
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "team#1"}, "sk": &types.AttributeValueMemberS{Value: sk}}
	}
	has := func(table, sk string) bool {
		t.Helper()
		got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(sk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("GetItem: %v", err)
		}
		return got.Item != nil
	}
	gone := func(table string) bool {
		_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		return err != nil
	}

	// Whole in the holding table, the table itself already deleted.
	prefix := randomPrefix(t)
	name := prefix + "AccountsTable"
	createKeysTable(ctx, t, client, name+".rebuild", "pk", "sk")
	createKeysTable(ctx, t, client, name+".rebuild-ready", "pk")
	putItem(ctx, t, client, name+".rebuild", key("team"))
	if _, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil {
		t.Fatalf("Provision after an interrupted rebuild: %v", err)
	}
	if !has(name, "team") {
		t.Errorf("after Provision, %s lacks the held item; want it restored", name)
	}
	if !gone(name+".rebuild") || !gone(name+".rebuild-ready") {
		t.Errorf("the holding table or its marker is still there after Provision")
	}

	// Half copied: the table (of an older schema) still holds every item.
	prefix = randomPrefix(t)
	name = prefix + "AccountsTable"
	createKeysTable(ctx, t, client, name, "pk", "sk")
	putItem(ctx, t, client, name, key("team"))
	putItem(ctx, t, client, name, key("key"))
	createKeysTable(ctx, t, client, name+".rebuild", "pk", "sk")
	putItem(ctx, t, client, name+".rebuild", key("team"))
	if _, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil {
		t.Fatalf("Provision after a rebuild interrupted while copying: %v", err)
	}
	if !has(name, "team") || !has(name, "key") {
		t.Errorf("after Provision, %s lost items the half-copied holding table lacked", name)
	}
	if !gone(name + ".rebuild") {
		t.Errorf("the half-copied holding table is still there after Provision")
	}
}

// A table that lacks the global indexes the template added since (local data of an older release)
// gets them, built over the items it already holds.
func TestProvisionAddsGlobalIndexes(t *testing.T) {
	client, queues := clients(t)
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prefix := randomPrefix(t)
	table := aws.String(prefix + "DeliveriesTable")
	createKeysTable(ctx, t, client, *table, "pk")
	item := map[string]types.AttributeValue{
		"pk":         &types.AttributeValueMemberS{Value: "delivery#1"},
		"sweep_key":  &types.AttributeValueMemberS{Value: "pending"},
		"due_at":     &types.AttributeValueMemberN{Value: "1700000000"},
		"webhook_id": &types.AttributeValueMemberS{Value: "wh1"},
		"status_key": &types.AttributeValueMemberS{Value: "pending#1"},
	}
	putItem(ctx, t, client, *table, item)
	if _, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil {
		t.Fatalf("Provision over a table lacking global indexes: %v", err)
	}
	for _, q := range []struct{ index, hash, value string }{{"by_due", "sweep_key", "pending"}, {"by_webhook", "webhook_id", "wh1"}} {
		out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: table, IndexName: aws.String(q.index),
			KeyConditionExpression:    aws.String("#h = :v"),
			ExpressionAttributeNames:  map[string]string{"#h": q.hash},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: q.value}}})
		if err != nil || len(out.Items) != 1 {
			t.Errorf("Query %s after Provision = %v, %v; want the item stored before", q.index, out, err)
		}
	}
}

func TestProvisionCancelled(t *testing.T) {
	client, queues := clients(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := samtemplate.Provision(ctx, client, queues, loadRepoTemplate(t), randomPrefix(t))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Provision(cancelled) error = %v; want context.Canceled", err)
	}
}

func TestProvisionWithoutClients(t *testing.T) {
	tpl := loadRepoTemplate(t)
	tests := []struct {
		name   string
		db     *dynamodb.Client
		queues *sqs.Client
	}{
		{name: "no DynamoDB client", queues: sqs.New(sqs.Options{})},
		{name: "no SQS client", db: dynamodb.New(dynamodb.Options{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := samtemplate.Provision(context.Background(), tt.db, tt.queues, tpl, "x-"); err == nil {
				t.Errorf("Provision() error = nil; want one")
			}
		})
	}
}

// putItem puts item into table, or fails the test.
func putItem(ctx context.Context, t *testing.T, client *dynamodb.Client, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatalf("PutItem %s: %v", table, err)
	}
}

// createKeysTable creates an on-demand table with string keys only (a hash key, and a range key
// when two names are given), as an older release's table or a rebuild's leftovers would be.
func createKeysTable(ctx context.Context, t *testing.T, client *dynamodb.Client, name string, keys ...string) {
	t.Helper()
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest}
	for i, k := range keys {
		typ := types.KeyTypeHash
		if i > 0 {
			typ = types.KeyTypeRange
		}
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(k), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(k), KeyType: typ})
	}
	if _, err := client.CreateTable(ctx, in); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// TestProvisionRebuildsChangedProjection: a table whose index projects other attributes than the
// template says (the deliveries table of an older release, whose by_webhook index projected every
// attribute) is rebuilt with the template's projection, its items kept.
func TestProvisionRebuildsChangedProjection(t *testing.T) {
	client, queues := clients(t)
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := randomPrefix(t)
	tb, ok := tpl.Table("DeliveriesTable")
	if !ok {
		t.Fatal("template.yaml declares no DeliveriesTable")
	}
	old := tb.CreateTableInput(prefix + "DeliveriesTable")
	for i, x := range old.GlobalSecondaryIndexes {
		if aws.ToString(x.IndexName) == "by_webhook" {
			old.GlobalSecondaryIndexes[i].Projection = &types.Projection{ProjectionType: types.ProjectionTypeAll}
		}
	}
	if _, err := client.CreateTable(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.NewTableExistsWaiter(client).Wait(ctx, &dynamodb.DescribeTableInput{TableName: old.TableName}, time.Minute); err != nil {
		t.Fatal(err)
	}
	putItem(ctx, t, client, *old.TableName, map[string]types.AttributeValue{
		"pk":         &types.AttributeValueMemberS{Value: "dlv_1"},
		"webhook_id": &types.AttributeValueMemberS{Value: "wh1"},
		"status_key": &types.AttributeValueMemberS{Value: "succeeded#1#dlv_1"},
		"status":     &types.AttributeValueMemberS{Value: "succeeded"},
		"payload":    &types.AttributeValueMemberS{Value: `{"id":"evt_1"}`},
	})
	if _, err := samtemplate.Provision(ctx, client, queues, tpl, prefix); err != nil {
		t.Fatalf("Provision over the older deliveries table: %v", err)
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: old.TableName})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range desc.Table.GlobalSecondaryIndexes {
		if aws.ToString(x.IndexName) == "by_webhook" && x.Projection.ProjectionType != types.ProjectionTypeInclude {
			t.Errorf("after Provision by_webhook projects %s; want the template's INCLUDE", x.Projection.ProjectionType)
		}
	}
	out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: old.TableName, IndexName: aws.String("by_webhook"),
		KeyConditionExpression:    aws.String("webhook_id = :w"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": &types.AttributeValueMemberS{Value: "wh1"}}})
	if err != nil || len(out.Items) != 1 || out.Items[0]["status"] == nil || out.Items[0]["payload"] != nil {
		t.Errorf("by_webhook after the rebuild = %v, %v; want the item, its status and no payload", out, err)
	}
}
