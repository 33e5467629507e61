package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// engineCeiling is how fast the engine takes, on a copy of the deliveries table and with items the
// size of the drained deliveries, the kinds of write a delivery's bookkeeping can be made of. It
// bounds every design of the pipeline from above, whatever the pipeline does around them: the
// drain budget (half the floor loop) is reachable only by a design whose writes fit in it.
type engineCeiling struct {
	items       int     // items written per kind
	itemBytes   int     // size of a delivery item (its attributes' names and values)
	update, put float64 // items/s: conditional UpdateItem, conditional PutItem (ceilingConc in flight)
	batch       float64 // items/s: unconditional BatchWriteItem puts, 25 a call (ceilingBatchConc calls in flight)
	// kept is the floor loop's rate (events/s) with the least bookkeeping of a design that stores
	// each delivery: its POSTs, 4 in flight, and every delivery written twice in unconditional
	// batches of 25, before and after its POST (see keeper).
	kept float64
}

// In-flight calls of the ceiling's runs: single-item writes as many as the drain had about in flight,
// batches as many as its batches of writes.
const (
	ceilingConc      = 16
	ceilingBatchConc = 4
)

// conditional returns the deliveries per second of a design whose delivery costs one conditional
// update (a claim) and one conditional put (its record): the engine's ceiling for it.
func (c engineCeiling) conditional() float64 {
	if c.update <= 0 || c.put <= 0 {
		return 0
	}
	return 1 / (1/c.update + 1/c.put)
}

// batched returns the deliveries per second of a design whose delivery is written twice (created
// pending, then its outcome), both in unconditional batches: the least a durable record of each
// delivery and its attempt needs.
func (c engineCeiling) batched() float64 { return c.batch / 2 }

// measureCeiling measures the engine's ceiling on a table created as table says (the deliveries
// table's shape under another name, no stream), with n items shaped like sample, a delivery item as
// stored; then runs drain with a keeper that writes such items into that table, for the floor
// loop's rate with that bookkeeping.
func measureCeiling(ctx context.Context, db *dynamodb.Client, table *dynamodb.CreateTableInput, sample map[string]types.AttributeValue, n int,
	drain func(*keeper) (float64, error)) (engineCeiling, error) {
	c := engineCeiling{items: n, itemBytes: itemSize(sample)}
	name := aws.ToString(table.TableName)
	if _, err := db.CreateTable(ctx, table); err != nil {
		return c, err
	}
	defer func() {
		_, _ = db.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}()
	if err := dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
		return c, err
	}
	item := func(i int, claim string) map[string]types.AttributeValue {
		m := make(map[string]types.AttributeValue, len(sample)+2)
		maps.Copy(m, sample)
		m["pk"] = &types.AttributeValueMemberS{Value: "ceiling-" + strconv.Itoa(i)}
		m["claim"] = &types.AttributeValueMemberS{Value: claim}
		m["claim_until"] = &types.AttributeValueMemberN{Value: "0"}
		return m
	}
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
	var err error
	if c.batch, err = rate(ctx, n, 25, ceilingBatchConc, func(from, to int) error {
		items := make([]map[string]types.AttributeValue, 0, to-from)
		for i := from; i < to; i++ {
			items = append(items, item(i, "a"))
		}
		return batch(ctx, items)
	}); err != nil {
		return c, err
	}
	// Claims: a conditional update of each item that returns it whole.
	if c.update, err = rate(ctx, n, 1, ceilingConc, func(i, _ int) error {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
			Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "ceiling-" + strconv.Itoa(i)}},
			UpdateExpression:          aws.String("SET claim = :b, claim_until = :u"),
			ConditionExpression:       aws.String("claim = :a AND claim_until < :u"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": &types.AttributeValueMemberS{Value: "a"}, ":b": &types.AttributeValueMemberS{Value: "b"}, ":u": &types.AttributeValueMemberN{Value: "1"}},
			ReturnValues:              types.ReturnValueAllNew})
		return err
	}); err != nil {
		return c, err
	}
	// Records: a conditional put of each item whole.
	if c.put, err = rate(ctx, n, 1, ceilingConc, func(i, _ int) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item(i, "c"),
			ConditionExpression:       aws.String("claim = :b"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberS{Value: "b"}}})
		return err
	}); err != nil {
		return c, err
	}
	// The floor loop keeping each delivery: the items keyed by event id, their status as written.
	c.kept, err = drain(&keeper{chunk: 25, write: func(ctx context.Context, ids []string, status string) error {
		items := make([]map[string]types.AttributeValue, len(ids))
		for i, id := range ids {
			items[i] = item(0, "a")
			items[i]["pk"] = &types.AttributeValueMemberS{Value: id}
			items[i]["status"] = &types.AttributeValueMemberS{Value: status}
		}
		return batch(ctx, items)
	}})
	return c, err
}

// rate runs write over [0, n) in chunks of step, conc chunks at once, and returns items per second.
func rate(ctx context.Context, n, step, conc int, write func(from, to int) error) (float64, error) {
	chunks := make(chan int)
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for from := range chunks {
				if err := write(from, min(from+step, n)); err != nil {
					errs <- err
					for range chunks {
					}
					return
				}
			}
		})
	}
	for from := 0; from < n && ctx.Err() == nil; from += step {
		chunks <- from
	}
	close(chunks)
	wg.Wait()
	close(errs)
	if err := errors.Join(<-errs, ctx.Err()); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// itemSize returns the size DynamoDB bills for an item, roughly: its names and values.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			n += len(v.Value)
		case *types.AttributeValueMemberN:
			n += len(v.Value)
		default:
			n += 8
		}
	}
	return n
}

// print writes the ceiling's lines of the webhook report, beside the floor loop's rate.
func (c engineCeiling) print(w io.Writer, floorLoop float64) {
	if c.items == 0 {
		return
	}
	x := func(r float64) string {
		if floorLoop <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", r/floorLoop)
	}
	fmt.Fprintf(w, "  the engine's ceiling (a copy of the deliveries table, %d items of %d B each, nothing else writing):\n", c.items, c.itemBytes)
	fmt.Fprintf(w, "    %-60s %8s items/s\n", fmt.Sprintf("conditional UpdateItem returning the item (%d in flight)", ceilingConc), perSecond(c.update))
	fmt.Fprintf(w, "    %-60s %8s items/s\n", fmt.Sprintf("conditional PutItem (%d in flight)", ceilingConc), perSecond(c.put))
	fmt.Fprintf(w, "    %-60s %8s items/s\n", fmt.Sprintf("BatchWriteItem, 25 unconditional puts a call (%d in flight)", ceilingBatchConc), perSecond(c.batch))
	fmt.Fprintf(w, "    %-60s %8s deliveries/s  %s the floor loop\n", "delivery = a conditional claim + a conditional record", perSecond(c.conditional()), x(c.conditional()))
	fmt.Fprintf(w, "    %-60s %8s deliveries/s  %s the floor loop\n", "delivery = written twice in unconditional batches", perSecond(c.batched()), x(c.batched()))
	fmt.Fprintf(w, "  the floor loop with the least bookkeeping of a design that stores each delivery (4 POSTs in flight;\n")
	fmt.Fprintf(w, "  each delivery written before and after its POST, 25 to an unconditional BatchWriteItem):\n")
	fmt.Fprintf(w, "    %-60s %8s deliveries/s  %s the floor loop\n", "floor loop + two batched writes per delivery", perSecond(c.kept), x(c.kept))
}
