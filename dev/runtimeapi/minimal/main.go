// Command minimal is the smallest aws-lambda-go function: it answers every event with an empty
// object. `make bench` builds it like the real functions and measures it beside them under the
// Runtime API, as the baseline of cold start, warm latency and memory.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, json.RawMessage) (map[string]string, error) {
		return map[string]string{}, nil
	})
}
