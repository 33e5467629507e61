package samtemplate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Rebuilding a local table whose indexes differ from the template's (local data of an older
// release): DynamoDB cannot add local secondary indexes to a table, and DynamoDB Local's
// asynchronous build of an added global index can stay CREATING for good when the engine is busy,
// so the table is rebuilt instead, items kept:
//
//  1. the items are copied to a holding table "<name>.rebuild" of the template's schema;
//  2. the table is deleted and created again with the template's schema, without its stream;
//  3. the items are copied back, then the holding table is deleted;
//  4. the stream is enabled (afterwards, so that the copy fires no webhook event).
//
// A rebuild interrupted after step 1 is finished by the next Provision, which finds the holding
// table; copies are idempotent (each item is put whole).

// rebuildSuffix names a table's holding table during a rebuild.
const rebuildSuffix = ".rebuild"

// sameKeys reports whether a table's primary key is the template's: items can be copied only then.
func sameKeys(have *types.TableDescription, want *dynamodb.CreateTableInput) bool {
	return keysString(have.KeySchema) == keysString(want.KeySchema)
}

// rebuildTable rebuilds table name with the schema of want, keeping its items (see above).
func rebuildTable(ctx context.Context, client *dynamodb.Client, name string, want *dynamodb.CreateTableInput) error {
	hold := name + rebuildSuffix
	exists, err := tableExists(ctx, client, hold)
	if err != nil {
		return err
	}
	if !exists {
		if err := createPlain(ctx, client, hold, want); err != nil {
			return err
		}
		if err := copyItems(ctx, client, name, hold); err != nil {
			return err
		}
	}
	return restoreFrom(ctx, client, name, hold, want)
}

// restoreFrom finishes a rebuild from its holding table: name is created anew (its old version
// deleted if still there), the items copied back, the holding table deleted, the stream enabled.
func restoreFrom(ctx context.Context, client *dynamodb.Client, name, hold string, want *dynamodb.CreateTableInput) error {
	if exists, err := tableExists(ctx, client, name); err != nil {
		return err
	} else if exists {
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}, dynamoDBLocal); err != nil {
			return fmt.Errorf("samtemplate: rebuild %s: delete: %w", name, err)
		}
		if err := dynamodb.NewTableNotExistsWaiter(client, func(o *dynamodb.TableNotExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
			o.ClientOptions = append(o.ClientOptions, dynamoDBLocal)
		}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute); err != nil {
			return fmt.Errorf("samtemplate: rebuild %s: wait for deletion: %w", name, err)
		}
	}
	if err := createPlain(ctx, client, name, want); err != nil {
		return err
	}
	if err := copyItems(ctx, client, hold, name); err != nil {
		return err
	}
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(hold)}, dynamoDBLocal); err != nil {
		return fmt.Errorf("samtemplate: rebuild %s: delete %s: %w", name, hold, err)
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
	if err := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
		o.ClientOptions = append(o.ClientOptions, dynamoDBLocal)
	}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("samtemplate: rebuild: wait for %s: %w", name, err)
	}
	return nil
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
