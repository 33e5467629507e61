// Command floor is the least a GET by id can do as a Lambda function: the AWS SDK's configuration
// loaded from the environment at init, then one strongly consistent GetItem of the item each event
// names. `make bench` builds it like the real functions and measures it beside them and the
// minimal function under the Runtime API: the floor of an API function's cold start and warm
// latency (what the engine must do at least), where the minimal function does no I/O at all.
package main

import (
	"context"
	"errors"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// item names the item to read: its table and its pk and sk (strings).
type item struct {
	Table string `json:"table"`
	PK    string `json:"pk"`
	SK    string `json:"sk"`
}

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	lambda.Start(func(ctx context.Context, in item) (map[string]int, error) {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(in.Table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: in.PK}, "sk": &types.AttributeValueMemberS{Value: in.SK}},
		})
		if err != nil {
			return nil, err
		}
		if out.Item == nil {
			return nil, errors.New("no such item")
		}
		return map[string]int{"attributes": len(out.Item)}, nil
	})
}
