package main

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// The store's item format is shared/dynamostore/storeformat, which the store writes with: the
// raw sides, which issue the store's calls with the bare SDK, and the bulk imports, which write a
// dealership's history with batch writes rather than one transaction per record, build their
// items with it. What is left here is the bench's own: the raw client's options and the SDK
// update of a counter item.

// storeClientOptions configures the raw client as shared/dynamostore.New configures the store's:
// at most 3 attempts with short backoff and no client-side retry quota.
func storeClientOptions(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = 3
		so.MaxBackoff = 200 * time.Millisecond
		so.RateLimiter = ratelimit.None
	})
}

// item is one stored item.
type item = map[string]types.AttributeValue

// familyOf derives a new row's family (its copies, word items and counts), as the store does.
func familyOf(resource string, row item) storeformat.Family {
	return storeformat.Of(resource).Family(row, storeformat.FormatIndexed)
}

// counterUpdate is the update adding counts to one counter item of a team in one shard (item ""
// for the status shards, "<facet>=<value>" for an open facet value's counter).
func counterUpdate(table, teamID string, shard int, of string, counts map[string]int) *types.Update {
	names := slices.Sorted(maps.Keys(counts))
	var parts []string
	attrNames := map[string]string{}
	values := map[string]types.AttributeValue{}
	for i, name := range names {
		attrNames["#a"+strconv.Itoa(i)] = name
		values[":v"+strconv.Itoa(i)] = n(counts[name])
		parts = append(parts, "#a"+strconv.Itoa(i)+" :v"+strconv.Itoa(i))
	}
	return &types.Update{TableName: &table, Key: item{"pk": s(teamID), "sk": s(storeformat.CounterKey(of, shard))},
		UpdateExpression: ptrTo("ADD " + strings.Join(parts, ", ")), ExpressionAttributeNames: attrNames,
		ExpressionAttributeValues: values}
}

func ptrTo[T any](v T) *T { return &v }
