package storecore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"
)

// client is the DynamoDB client behind the operations guregu/dynamo calls, and no other. It holds
// the SDK client's methods, never the client itself: a binary that calls methods by name through
// reflection (the console's html/template) keeps every exported method of every type it can reach
// from an interface value, and the SDK's client has about sixty operations, each with its
// serializers and middleware. Through method values the linker keeps only the ones below.
type client struct {
	createTable        func(context.Context, *dynamodb.CreateTableInput, ...opt) (*dynamodb.CreateTableOutput, error)
	listTables         func(context.Context, *dynamodb.ListTablesInput, ...opt) (*dynamodb.ListTablesOutput, error)
	listGlobalTables   func(context.Context, *dynamodb.ListGlobalTablesInput, ...opt) (*dynamodb.ListGlobalTablesOutput, error)
	describeTable      func(context.Context, *dynamodb.DescribeTableInput, ...opt) (*dynamodb.DescribeTableOutput, error)
	updateTable        func(context.Context, *dynamodb.UpdateTableInput, ...opt) (*dynamodb.UpdateTableOutput, error)
	transactGetItems   func(context.Context, *dynamodb.TransactGetItemsInput, ...opt) (*dynamodb.TransactGetItemsOutput, error)
	batchGetItem       func(context.Context, *dynamodb.BatchGetItemInput, ...opt) (*dynamodb.BatchGetItemOutput, error)
	batchWriteItem     func(context.Context, *dynamodb.BatchWriteItemInput, ...opt) (*dynamodb.BatchWriteItemOutput, error)
	getItem            func(context.Context, *dynamodb.GetItemInput, ...opt) (*dynamodb.GetItemOutput, error)
	deleteItem         func(context.Context, *dynamodb.DeleteItemInput, ...opt) (*dynamodb.DeleteItemOutput, error)
	putItem            func(context.Context, *dynamodb.PutItemInput, ...opt) (*dynamodb.PutItemOutput, error)
	updateItem         func(context.Context, *dynamodb.UpdateItemInput, ...opt) (*dynamodb.UpdateItemOutput, error)
	updateTimeToLive   func(context.Context, *dynamodb.UpdateTimeToLiveInput, ...opt) (*dynamodb.UpdateTimeToLiveOutput, error)
	describeTimeToLive func(context.Context, *dynamodb.DescribeTimeToLiveInput, ...opt) (*dynamodb.DescribeTimeToLiveOutput, error)
	query              func(context.Context, *dynamodb.QueryInput, ...opt) (*dynamodb.QueryOutput, error)
	scan               func(context.Context, *dynamodb.ScanInput, ...opt) (*dynamodb.ScanOutput, error)
	deleteTable        func(context.Context, *dynamodb.DeleteTableInput, ...opt) (*dynamodb.DeleteTableOutput, error)
	transactWriteItems func(context.Context, *dynamodb.TransactWriteItemsInput, ...opt) (*dynamodb.TransactWriteItemsOutput, error)
}

// opt is an option of one DynamoDB call.
type opt = func(*dynamodb.Options)

var _ dynamodbiface.DynamoDBAPI = client{}

// newDynamo returns a guregu/dynamo DB on the SDK client c.
func newDynamo(c *dynamodb.Client) *dynamo.DB {
	return dynamo.NewFromIface(client{
		createTable:        c.CreateTable,
		listTables:         c.ListTables,
		listGlobalTables:   c.ListGlobalTables,
		describeTable:      c.DescribeTable,
		updateTable:        c.UpdateTable,
		transactGetItems:   c.TransactGetItems,
		batchGetItem:       c.BatchGetItem,
		batchWriteItem:     c.BatchWriteItem,
		getItem:            c.GetItem,
		deleteItem:         c.DeleteItem,
		putItem:            c.PutItem,
		updateItem:         c.UpdateItem,
		updateTimeToLive:   c.UpdateTimeToLive,
		describeTimeToLive: c.DescribeTimeToLive,
		query:              c.Query,
		scan:               c.Scan,
		deleteTable:        c.DeleteTable,
		transactWriteItems: c.TransactWriteItems,
	})
}

func (k client) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...opt) (*dynamodb.CreateTableOutput, error) {
	return k.createTable(ctx, in, o...)
}

func (k client) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...opt) (*dynamodb.ListTablesOutput, error) {
	return k.listTables(ctx, in, o...)
}

func (k client) ListGlobalTables(ctx context.Context, in *dynamodb.ListGlobalTablesInput, o ...opt) (*dynamodb.ListGlobalTablesOutput, error) {
	return k.listGlobalTables(ctx, in, o...)
}

func (k client) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...opt) (*dynamodb.DescribeTableOutput, error) {
	return k.describeTable(ctx, in, o...)
}

func (k client) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, o ...opt) (*dynamodb.UpdateTableOutput, error) {
	return k.updateTable(ctx, in, o...)
}

func (k client) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...opt) (*dynamodb.TransactGetItemsOutput, error) {
	return k.transactGetItems(ctx, in, o...)
}

func (k client) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...opt) (*dynamodb.BatchGetItemOutput, error) {
	return k.batchGetItem(ctx, in, o...)
}

func (k client) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...opt) (*dynamodb.BatchWriteItemOutput, error) {
	return k.batchWriteItem(ctx, in, o...)
}

func (k client) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...opt) (*dynamodb.GetItemOutput, error) {
	return k.getItem(ctx, in, o...)
}

func (k client) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...opt) (*dynamodb.DeleteItemOutput, error) {
	return k.deleteItem(ctx, in, o...)
}

func (k client) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...opt) (*dynamodb.PutItemOutput, error) {
	return k.putItem(ctx, in, o...)
}

func (k client) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...opt) (*dynamodb.UpdateItemOutput, error) {
	return k.updateItem(ctx, in, o...)
}

func (k client) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...opt) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return k.updateTimeToLive(ctx, in, o...)
}

func (k client) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...opt) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return k.describeTimeToLive(ctx, in, o...)
}

func (k client) Query(ctx context.Context, in *dynamodb.QueryInput, o ...opt) (*dynamodb.QueryOutput, error) {
	return k.query(ctx, in, o...)
}

func (k client) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...opt) (*dynamodb.ScanOutput, error) {
	return k.scan(ctx, in, o...)
}

func (k client) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, o ...opt) (*dynamodb.DeleteTableOutput, error) {
	return k.deleteTable(ctx, in, o...)
}

func (k client) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...opt) (*dynamodb.TransactWriteItemsOutput, error) {
	return k.transactWriteItems(ctx, in, o...)
}
