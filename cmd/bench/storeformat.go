package main

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The store's item format is shared/dynamostore/storeformat, which the store writes with; the raw
// sides name its keys with it. What is left here is the bench's own: the raw client's options.

// storeClientOptions configures the raw client as shared/dynamostore.New configures the store's:
// at most 3 attempts with short backoff and no client-side retry quota.
func storeClientOptions(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = 3
		so.MaxBackoff = 200 * time.Millisecond
		so.RateLimiter = ratelimit.None
	})
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
