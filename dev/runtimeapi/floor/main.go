// Command floor is the least an authenticated, rate-limited GET by id can do as a Lambda function:
// the AWS SDK's configuration loaded from the environment at init, then, for each event, the
// DynamoDB calls such a request must make, all at once as the API's hinted read makes them (the
// edge named the team and its plan): the key and its team (one strongly consistent BatchGetItem of
// two items), the team's request counters of the minute and of the day (two UpdateItem, each an ADD
// of one that returns the new item, conditioned on the plan's limit when it has one), and the record
// (one strongly consistent GetItem). Four calls, in parallel, with the bare SDK client. The event
// names every item; the function decodes nothing and checks only that the three items read exist.
//
// `make bench` builds it like the real functions and measures it beside them and the minimal
// function under the Runtime API: the floor of an API function's cold start and warm latency (what
// any engine of the contract must do at least), where the minimal function does no I/O at all.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// itemKey names an item by its pk and sk (strings).
type itemKey struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
}

// counter names a rate counter's item and how it is counted: the window's limit (0: none, the
// count is not conditioned) and the item's expiry (epoch seconds).
type counter struct {
	itemKey
	Limit     int   `json:"limit"`
	ExpiresAt int64 `json:"expires_at"`
}

// event names the items of one GET by id.
type event struct {
	Accounts string  `json:"accounts"` // the table of the key, the team and the counters
	Key      itemKey `json:"key"`
	Team     itemKey `json:"team"`
	Minute   counter `json:"minute"`
	Day      counter `json:"day"`
	Records  string  `json:"records"` // the table of the record
	Record   itemKey `json:"record"`
}

// answer is what the floor read: the attributes of each item read, and the counters' new counts.
type answer struct {
	Key    int `json:"key"`
	Team   int `json:"team"`
	Record int `json:"record"`
	Minute int `json:"minute"`
	Day    int `json:"day"`
}

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	lambda.Start(func(ctx context.Context, in event) (answer, error) {
		var out answer
		var g errgroup.Group
		g.Go(func() error { return keyAndTeam(ctx, db, in, &out) })
		g.Go(func() (err error) { out.Minute, err = count(ctx, db, in.Accounts, in.Minute); return err })
		g.Go(func() (err error) { out.Day, err = count(ctx, db, in.Accounts, in.Day); return err })
		g.Go(func() error {
			res, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(in.Records),
				Key: in.Record.key(), ConsistentRead: aws.Bool(true)})
			if err != nil {
				return err
			}
			if res.Item == nil {
				return errors.New("no such record")
			}
			out.Record = len(res.Item)
			return nil
		})
		return out, g.Wait()
	})
}

// keyAndTeam reads the key and the team in one strongly consistent BatchGetItem.
func keyAndTeam(ctx context.Context, db *dynamodb.Client, in event, out *answer) error {
	res, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		in.Accounts: {Keys: []map[string]types.AttributeValue{in.Key.key(), in.Team.key()}, ConsistentRead: aws.Bool(true)},
	}})
	if err != nil {
		return err
	}
	if len(res.UnprocessedKeys) > 0 {
		return errors.New("key and team: unprocessed keys")
	}
	for _, item := range res.Responses[in.Accounts] {
		switch s(item["pk"]) {
		case in.Key.PK:
			out.Key = len(item)
		case in.Team.PK:
			out.Team = len(item)
		}
	}
	if out.Key == 0 || out.Team == 0 {
		return fmt.Errorf("key and team: %d and %d attributes (no such item)", out.Key, out.Team)
	}
	return nil
}

// count adds one to a rate counter, below its limit if it has one, and returns its new count.
func count(ctx context.Context, db *dynamodb.Client, table string, c counter) (int, error) {
	in := &dynamodb.UpdateItemInput{
		TableName:                aws.String(table),
		Key:                      c.key(),
		UpdateExpression:         aws.String("SET expires_at = :e ADD #c :one"),
		ExpressionAttributeNames: map[string]string{"#c": "count"}, // a reserved word
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":e":   &types.AttributeValueMemberN{Value: strconv.FormatInt(c.ExpiresAt, 10)},
			":one": &types.AttributeValueMemberN{Value: "1"},
		},
		ReturnValues: types.ReturnValueAllNew,
	}
	if c.Limit > 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(#c) OR #c < :limit")
		in.ExpressionAttributeValues[":limit"] = &types.AttributeValueMemberN{Value: strconv.Itoa(c.Limit)}
	}
	res, err := db.UpdateItem(ctx, in)
	if err != nil {
		return 0, err
	}
	n, ok := res.Attributes["count"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("counter without a count")
	}
	return strconv.Atoi(n.Value)
}

func (k itemKey) key() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k.PK}, "sk": &types.AttributeValueMemberS{Value: k.SK}}
}

func s(v types.AttributeValue) string {
	if v, ok := v.(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
