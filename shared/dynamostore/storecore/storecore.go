// Package storecore is what every part of the DynamoDB store works with: the clients, the table
// names, transactions retried on conflicts and the mapping of storage errors to the domain's.
//
// The parts (the records in package dynamostore, the webhooks and deliveries in webhookdb, the
// accounts in accountdb) each build on one DB; none imports another. See docs/storage.md.
package storecore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// Tables names the DynamoDB tables the store uses. An empty name leaves that part unavailable.
type Tables struct {
	Vehicles string
	Clients  string
	Deals    string
	Accounts string
	// Webhooks and Deliveries hold the webhook configurations and the delivery log.
	Webhooks   string
	Deliveries string
	// Activities and Financial hold the dashboard modules' records (not in the public API).
	Activities string
	Financial  string
	// Audit holds the audit log of the changes made in the console and by the operators' tool.
	Audit string
}

// DB is what every part of the store works with: the DynamoDB clients and the table names. The
// parts share one DB, and so one retry quota. It is safe for concurrent use.
type DB struct {
	// Dynamo is the client of every read and write but the rate counters' increments.
	Dynamo *dynamo.DB
	// Counters is the client for the rate limiter's increments, whose retries must never count
	// twice (counterRetryables).
	Counters *dynamo.DB
	Tables   Tables
}

// New returns the store's clients on the given AWS configuration. The SDK finds the endpoint through the standard
// variables (AWS_ENDPOINT_URL_DYNAMODB for DynamoDB Local). Retries are few and short, so that an
// unreachable database turns into a prompt error rather than a hung request.
func New(cfg aws.Config, tables Tables) *DB {
	quota := ratelimit.NewTokenRateLimit(retryQuota)
	cfg = withUnavailable(cfg)
	counters := cfg.Copy()
	if c, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		// A counter's increment is not sent again after a timeout, so its one attempt may wait
		// as long as the request allows: a stall of the database slows it instead of failing it.
		counters.HTTPClient = c.WithTimeout(counterAttemptTimeout)
	}
	return &DB{Dynamo: newDynamo(dynamodb.NewFromConfig(cfg, clientOptions(quota, nil))),
		Counters: newDynamo(dynamodb.NewFromConfig(counters, clientOptions(quota, counterRetryables))),
		Tables:   tables}
}

// counterAttemptTimeout bounds one attempt of a rate counter's increment: about a request's
// deadline, which bounds it sooner (the request's context).
const counterAttemptTimeout = 8 * time.Second

// retryQuota is the SDK's retry quota of one store (its default): each retry takes 5 tokens (a
// timeout 10), each call that succeeds at once gives one back. When DynamoDB is slow or failing,
// the quota runs out after about a hundred retries and calls fail at once instead of being sent
// again: an overload ends when the load does, rather than being kept up by retries. Transaction
// conflicts are retried by the store itself (RunTx), never by the SDK.
const retryQuota = 500

// counterRetryables are the only failures an increment of a rate counter is sent again after:
// those that prove DynamoDB did not apply it (throttled, or the connection never made). A timeout
// or a lost answer may hide an increment that was applied; sending it again would count the
// request twice, so it fails the request instead.
var counterRetryables = []retry.IsErrorRetryable{
	retry.NoRetryCanceledError{},
	retry.RetryableErrorCode{Codes: map[string]struct{}{"ThrottlingException": {}, "ProvisionedThroughputExceededException": {},
		"RequestLimitExceeded": {}, "Throttling": {}, "ThrottledException": {}, "TooManyRequestsException": {}}},
	retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return aws.TrueTernary
		}
		return aws.UnknownTernary
	}),
}

// clientOptions configures a DynamoDB client of the store: at most 3 attempts with short backoff,
// within the store's retry quota, on the SDK's retryable failures or on retryables when given.
func clientOptions(quota *ratelimit.TokenRateLimit, retryables []retry.IsErrorRetryable) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = 3
			so.MaxBackoff = 200 * time.Millisecond
			so.RateLimiter = quota
			if retryables != nil {
				so.Retryables = retryables
			}
		})
	}
}

// MaxTxAttempts bounds the retries of a transaction that DynamoDB cancelled for a conflict with
// another transaction: conflicts are never surfaced as errors before this many attempts, nor
// before RaceBudget has passed (writers of one item on a busy engine take turns of hundreds of
// milliseconds each, and twenty of them contending outlast twelve quick attempts).
const MaxTxAttempts = 12

// RunTx runs the transaction that build returns, retrying transaction conflicts with jittered
// backoff: with attempts > 1, until it has made that many attempts and RaceBudget has passed
// since its first (or ctx ends); with 1, once. build is called again for every attempt.
//
// Each attempt carries an idempotency token of its own (ClientRequestToken, which the SDK fills
// in and its retries of that attempt resend): when an attempt was applied but its answer was lost
// (a timeout on a busy engine, a dropped connection), its retry is answered as the success it
// was, not as the failure of its own conditions against the items it just wrote.
func (s *DB) RunTx(ctx context.Context, attempts int, build func() *dynamo.WriteTx) error {
	backoff := 10 * time.Millisecond
	deadline := time.Now().Add(RaceBudget)
	for attempt := 1; ; attempt++ {
		err := build().Run(ctx)
		if err == nil || !IsTxConflict(err) || attempts <= 1 || (attempt >= attempts && time.Now().After(deadline)) {
			return err
		}
		sleep := backoff/2 + rand.N(backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sleep):
		}
		backoff = min(backoff*2, 500*time.Millisecond)
	}
}

// PutNew writes a new item (its key not yet taken: a fresh id) with the condition that its key
// is free, and reports the condition's failure when it is not. A put is not idempotent on its
// own: when an attempt was applied but its answer lost, the SDK's retry finds the key taken by
// that very attempt; so a failed condition is told apart by reading the item, which is then the
// one written.
func (s *DB) PutNew(ctx context.Context, t dynamo.Table, row any) error {
	item, err := dynamo.MarshalItem(row)
	if err != nil {
		return err
	}
	err = t.Put(item).If("attribute_not_exists(pk)").Run(ctx)
	if !dynamo.IsCondCheckFailed(err) {
		return err
	}
	var stored dynamo.Item
	if t.Get("pk", AttrString(item, "pk")).Range("sk", dynamo.Equal, AttrString(item, "sk")).Consistent(true).One(ctx, &stored) == nil &&
		reflect.DeepEqual(stored, item) {
		return nil
	}
	return err
}

// IsTxConflict reports a transaction cancelled only because of concurrent transactions.
func IsTxConflict(err error) bool {
	var txe *types.TransactionCanceledException
	if errors.As(err, &txe) {
		conflict := false
		for _, r := range txe.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "TransactionConflict":
				conflict = true
			case "", "None":
			default:
				return false
			}
		}
		return conflict
	}
	var inProgress *types.TransactionInProgressException
	return errors.As(err, &inProgress)
}

// CancelReason returns the cancellation code of item i of a cancelled transaction, or "".
func CancelReason(err error, i int) string {
	var txe *types.TransactionCanceledException
	if errors.As(err, &txe) && i < len(txe.CancellationReasons) {
		return aws.ToString(txe.CancellationReasons[i].Code)
	}
	return ""
}

// DecodeRows converts stored rows to domain records.
func DecodeRows[R, T any](rows []R, decode func(R) (T, error)) ([]T, error) {
	out := make([]T, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = decode(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Wrap turns an unexpected storage error into patio.Internal with the operation and key, and lets
// domain errors through unchanged.
func Wrap(err error, op string, key string) error {
	if err == nil {
		return nil
	}
	var pe *patio.Error
	if errors.As(err, &pe) {
		return err
	}
	return patio.Internal(fmt.Errorf("dynamostore: %s %s: %w", op, key, err))
}

// NotFound maps dynamo.ErrNotFound to the domain's not-found error.
func NotFound(err error, what string) error {
	if errors.Is(err, dynamo.ErrNotFound) {
		return patio.NotFoundf("%s not found", what)
	}
	return err
}
