package samtemplate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

func TestCreateTables(t *testing.T) {
	client := dynamodb.NewFromConfig(testenv.AWSConfig(t))
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := randomPrefix(t)

	names, err := samtemplate.CreateTables(ctx, client, tpl, prefix)
	if err != nil {
		t.Fatalf("CreateTables: %v", err)
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

	// A second run keeps the existing tables and their items (the local stack's persistent data).
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "team#1"},
		"sk": &types.AttributeValueMemberS{Value: "team"},
	}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(names["AccountsTable"]), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	again, err := samtemplate.CreateTables(ctx, client, tpl, prefix)
	if err != nil {
		t.Fatalf("CreateTables again: %v", err)
	}
	if !mapsEqual(again, names) {
		t.Errorf("CreateTables again = %v; want %v", again, names)
	}
	got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(names["AccountsTable"]), Key: item, ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item == nil {
		t.Errorf("GetItem after second CreateTables = %v, %v; want the item kept", got.Item, err)
	}
}

func TestCreateTablesSchemaDrift(t *testing.T) {
	client := dynamodb.NewFromConfig(testenv.AWSConfig(t))
	tpl := loadRepoTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prefix := randomPrefix(t)

	// An older VehiclesTable without the template's indexes.
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(prefix + "VehiclesTable"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	_, err = samtemplate.CreateTables(ctx, client, tpl, prefix)
	if err == nil || !strings.Contains(err.Error(), "another schema") {
		t.Errorf("CreateTables over a drifted table: error = %v; want one about another schema", err)
	}
}

func TestCreateTablesCancelled(t *testing.T) {
	client := dynamodb.NewFromConfig(testenv.AWSConfig(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := samtemplate.CreateTables(ctx, client, loadRepoTemplate(t), randomPrefix(t))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CreateTables(cancelled) error = %v; want context.Canceled", err)
	}
}
