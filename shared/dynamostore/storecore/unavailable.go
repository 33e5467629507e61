package storecore

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/patio-dev/patio/shared/patio"
)

// withUnavailable returns cfg with every DynamoDB call's final error (after the SDK's retries)
// marked patio.KindUnavailable when it means DynamoDB is throttling, failing or out of reach rather
// than that the call was wrong, so the API answers 503 with Retry-After instead of a 500.
func withUnavailable(cfg aws.Config) aws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("patioUnavailable",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if err != nil && unavailable(err) {
					err = patio.Unavailable(err)
				}
				return out, md, err
			}), middleware.Before)
	})
	return cfg
}

// unavailable reports whether err says DynamoDB did not serve the call for reasons of its own:
// throttled, an internal error (5xx), the retry quota spent on such failures, a connection
// refused, reset or timed out, or the request's deadline reached while waiting for it. A call so
// failed may have been applied (a lost answer); the API's writes are safe to retry with their
// Idempotency-Key.
func unavailable(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && slices.Contains(throttleCodes, ae.ErrorCode()) {
		return true
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		return true
	}
	var quota ratelimit.QuotaExceededError
	var ne net.Error
	return errors.As(err, &quota) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// throttleCodes are the error codes of a throttled call: the SDK's own list.
var throttleCodes = func() []string {
	codes := make([]string, 0, len(retry.DefaultThrottleErrorCodes))
	for c := range retry.DefaultThrottleErrorCodes {
		codes = append(codes, c)
	}
	return codes
}()
