package samtemplate

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Rebuilding a local table whose indexes differ from the template's (local data of an older
// release): DynamoDB cannot add local secondary indexes to a table, and DynamoDB Local's
// asynchronous build of an added global index can stay CREATING for good when the engine is busy,
// so the table is rebuilt instead, items kept:
//
//  1. the items are copied to a holding table "<name>.rebuild" of the template's schema, and a
//     marker table "<name>.rebuild-ready" is created once the copy is whole;
//  2. the table is deleted and created again with the template's schema, without its stream;
//  3. the items are copied back, then the holding table and the marker are deleted;
//  4. the stream is enabled (afterwards, so that the copy fires no webhook event).
//
// The next Provision after an interruption goes on from where it stopped (resumeRebuild): with
// the marker, from the holding table; without it, the table was not touched yet, and the holding
// table, maybe half copied, is dropped. Copies are idempotent (each item is put whole).

// rebuildSuffix and readySuffix name a table's holding table and marker during a rebuild.
const (
	rebuildSuffix = ".rebuild"
	readySuffix   = ".rebuild-ready"
)

// sameKeys reports whether a table's primary key is the template's: items can be copied only then.
func sameKeys(have *types.TableDescription, want *dynamodb.CreateTableInput) bool {
	return keysString(have.KeySchema) == keysString(want.KeySchema)
}

// rebuildTable rebuilds table name with the schema of want, keeping its items (see above).
func rebuildTable(ctx context.Context, client *dynamodb.Client, name string, want *dynamodb.CreateTableInput) error {
	hold := name + rebuildSuffix
	if err := createPlain(ctx, client, hold, want); err != nil {
		return err
	}
	if err := copyItems(ctx, client, name, hold); err != nil {
		return err
	}
	ready := &dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if err := createPlain(ctx, client, name+readySuffix, ready); err != nil {
		return err
	}
	return restoreFrom(ctx, client, name, want)
}

// resumeRebuild goes on with an interrupted rebuild of table name, if there is one: from its
// holding table once the marker says the copy into it is whole, else by dropping what is left of
// it (the table itself is then untouched, and Provision rebuilds it again).
func resumeRebuild(ctx context.Context, client *dynamodb.Client, name string, want *dynamodb.CreateTableInput) error {
	held, err := tableExists(ctx, client, name+rebuildSuffix)
	if err != nil {
		return err
	}
	ready, err := tableExists(ctx, client, name+readySuffix)
	if err != nil {
		return err
	}
	switch {
	case held && ready:
		return restoreFrom(ctx, client, name, want)
	case held:
		return dropTable(ctx, client, name+rebuildSuffix)
	case ready: // stopped between deleting the holding table and the marker
		return dropTable(ctx, client, name+readySuffix)
	}
	return nil
}

// restoreFrom finishes a rebuild from its whole holding table: name is created anew (its old
// version deleted if still there), the items copied back, the holding table and the marker
// deleted, the stream enabled.
func restoreFrom(ctx context.Context, client *dynamodb.Client, name string, want *dynamodb.CreateTableInput) error {
	hold := name + rebuildSuffix
	if exists, err := tableExists(ctx, client, name); err != nil {
		return err
	} else if exists {
		if err := dropTable(ctx, client, name); err != nil {
			return err
		}
	}
	if err := createPlain(ctx, client, name, want); err != nil {
		return err
	}
	if err := copyItems(ctx, client, hold, name); err != nil {
		return err
	}
	if err := dropTable(ctx, client, hold); err != nil {
		return err
	}
	if err := dropTable(ctx, client, name+readySuffix); err != nil {
		return err
	}
	if s := want.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: s}, dynamoDBLocal); err != nil {
			return fmt.Errorf("samtemplate: rebuild %s: enable the stream: %w", name, err)
		}
	}
	return nil
}

// createPlain creates table name with want's keys and indexes but no stream, and waits for it.
func createPlain(ctx context.Context, client *dynamodb.Client, name string, want *dynamodb.CreateTableInput) error {
	in := *want
	in.TableName = aws.String(name)
	in.StreamSpecification = nil
	if _, err := client.CreateTable(ctx, &in, dynamoDBLocal); err != nil {
		return fmt.Errorf("samtemplate: rebuild: create %s: %w", name, err)
	}
	return waitTable(ctx, client, name, true)
}

// dropTable deletes table name and waits until it is gone.
func dropTable(ctx context.Context, client *dynamodb.Client, name string) error {
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}, dynamoDBLocal); err != nil {
		return fmt.Errorf("samtemplate: rebuild: delete %s: %w", name, err)
	}
	return waitTable(ctx, client, name, false)
}

// copyItems puts every item of table from into table to, 25 to a batch, unprocessed ones again.
func copyItems(ctx context.Context, client *dynamodb.Client, from, to string) error {
	pages := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(from), ConsistentRead: aws.Bool(true)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, dynamoDBLocal)
		if err != nil {
			return fmt.Errorf("samtemplate: rebuild: scan %s: %w", from, err)
		}
		for i := 0; i < len(page.Items); i += 25 {
			var reqs []types.WriteRequest
			for _, item := range page.Items[i:min(i+25, len(page.Items))] {
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
			}
			for len(reqs) > 0 {
				out, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{to: reqs}}, dynamoDBLocal)
				if err != nil {
					return fmt.Errorf("samtemplate: rebuild: copy %s to %s: %w", from, to, err)
				}
				reqs = out.UnprocessedItems[to]
			}
		}
	}
	return nil
}

// tableExists reports whether table name exists.
func tableExists(ctx context.Context, client *dynamodb.Client, name string) (bool, error) {
	_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, dynamoDBLocal)
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("samtemplate: describe table %s: %w", name, err)
	}
	return true, nil
}
