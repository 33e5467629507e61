package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// engineCeiling is how fast the engine takes the kinds of write a delivery's bookkeeping can be
// made of: it bounds every design of the pipeline from above.
type engineCeiling struct {
	items       int     // items written per kind
	itemBytes   int     // size of a delivery item (its attributes' names and values)
	update, put float64 // items/s: conditional UpdateItem, conditional PutItem (ceilingConc in flight)
	batch       float64 // items/s: unconditional BatchWriteItem puts, 25 a call (ceilingBatchConc calls in flight)
	// kept is the floor loop's rate with each delivery written before and after its POST (keeper).
	kept float64
}

// In-flight calls of the ceiling's runs: single-item writes, and batches.
const (
	ceilingConc      = 16
	ceilingBatchConc = 4
)

// conditional is the ceiling of a delivery of a conditional claim and a conditional record.
func (c engineCeiling) conditional() float64 {
	if c.update <= 0 || c.put <= 0 {
		return 0
	}
	return 1 / (1/c.update + 1/c.put)
}

// measureCeiling measures the engine's ceiling on a table created as table says, with count items
// shaped like sample, then drain's rate with a keeper writing such items there.
func measureCeiling(ctx context.Context, db *dynamodb.Client, table *dynamodb.CreateTableInput, sample map[string]types.AttributeValue, count int,
	drain func(*keeper) (float64, error)) engineCeiling {
	c := engineCeiling{items: count, itemBytes: itemSize(sample)}
	name := aws.ToString(table.TableName)
	must(db.CreateTable(ctx, table))
	defer func() {
		_, _ = db.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}()
	check(dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute))
	item := func(key, claim string) map[string]types.AttributeValue {
		m := maps.Clone(sample)
		m["pk"], m["claim"], m["claim_until"] = s(key), s(claim), n(0)
		return m
	}
	key := func(i int) string { return "ceiling-" + strconv.Itoa(i) }
	batch := func(ctx context.Context, items []map[string]types.AttributeValue) error {
		reqs := make([]types.WriteRequest, 0, len(items))
		for _, it := range items {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		for len(reqs) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: reqs}})
			if err != nil {
				return err
			}
			reqs = out.UnprocessedItems[name]
		}
		return nil
	}
	// Batches: every item created in unconditional puts of 25.
	c.batch = must(rate(ctx, count, 25, ceilingBatchConc, func(from, to int) error {
		items := make([]map[string]types.AttributeValue, 0, to-from)
		for i := from; i < to; i++ {
			items = append(items, item(key(i), "a"))
		}
		return batch(ctx, items)
	}))
	// Claims: a conditional update of each item that returns it whole.
	c.update = must(rate(ctx, count, 1, ceilingConc, func(i, _ int) error {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
			Key:                       map[string]types.AttributeValue{"pk": s(key(i))},
			UpdateExpression:          aws.String("SET claim = :b, claim_until = :u"),
			ConditionExpression:       aws.String("claim = :a AND claim_until < :u"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("a"), ":b": s("b"), ":u": n(1)},
			ReturnValues:              types.ReturnValueAllNew})
		return err
	}))
	// Records: a conditional put of each item whole.
	c.put = must(rate(ctx, count, 1, ceilingConc, func(i, _ int) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item(key(i), "c"),
			ConditionExpression: aws.String("claim = :b"), ExpressionAttributeValues: map[string]types.AttributeValue{":b": s("b")}})
		return err
	}))
	// The floor loop keeping each delivery: the items keyed by event id, their status as written.
	c.kept = must(drain(&keeper{chunk: 25, write: func(ctx context.Context, ids []string, status string) error {
		items := make([]map[string]types.AttributeValue, len(ids))
		for i, id := range ids {
			items[i] = item(id, "a")
			items[i]["status"] = s(status)
		}
		return batch(ctx, items)
	}}))
	return c
}

// rate runs write over [0, n) in chunks of step, conc chunks at once, and returns items per second.
func rate(ctx context.Context, n, step, conc int, write func(from, to int) error) (float64, error) {
	start := time.Now()
	err := parallel(ctx, (n+step-1)/step, conc, func(_ context.Context, i int) error { return write(i*step, min(i*step+step, n)) })
	return float64(n) / time.Since(start).Seconds(), errors.Join(err, ctx.Err())
}

// itemSize returns the size DynamoDB bills for an item, roughly: its names and values.
func itemSize(item map[string]types.AttributeValue) int {
	size := 0
	for k, v := range item {
		size += len(k)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			size += len(v.Value)
		default:
			size += 8
		}
	}
	return size
}

// print writes the ceiling's lines of the webhook report, beside the floor loop's rate.
func (c engineCeiling) print(w io.Writer, floorLoop float64) {
	if c.items == 0 {
		return
	}
	items := func(what string, r float64) { fmt.Fprintf(w, "    %-60s %8s items/s\n", what, perSecond(r)) }
	deliveries := func(what string, r float64) {
		fmt.Fprintf(w, "    %-60s %8s deliveries/s  %.2fx the floor loop\n", what, perSecond(r), r/floorLoop)
	}
	fmt.Fprintf(w, "  the engine's ceiling (a copy of the deliveries table, %d items of %d B each, nothing else writing):\n", c.items, c.itemBytes)
	items(fmt.Sprintf("conditional UpdateItem returning the item (%d in flight)", ceilingConc), c.update)
	items(fmt.Sprintf("conditional PutItem (%d in flight)", ceilingConc), c.put)
	items(fmt.Sprintf("BatchWriteItem, 25 unconditional puts a call (%d in flight)", ceilingBatchConc), c.batch)
	deliveries("delivery = a conditional claim + a conditional record", c.conditional())
	// Written twice (created pending, then its outcome) in unconditional batches: the least a
	// durable record of each delivery and its attempt needs.
	deliveries("delivery = written twice in unconditional batches", c.batch/2)
	fmt.Fprintf(w, "  the floor loop with the least bookkeeping of a design that stores each delivery (4 POSTs in flight;\n")
	fmt.Fprintf(w, "  each delivery written before and after its POST, 25 to an unconditional BatchWriteItem):\n")
	deliveries("floor loop + two batched writes per delivery", c.kept)
}
