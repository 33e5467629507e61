package storecore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "provisioned throughput exceeded", err: &types.ProvisionedThroughputExceededException{}, want: true},
		{name: "request limit exceeded", err: &types.RequestLimitExceeded{}, want: true},
		{name: "internal server error (500)", err: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 500}},
			Err: &types.InternalServerError{}}, want: true},
		{name: "connection refused", err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}, want: true},
		{name: "deadline", err: fmt.Errorf("op: %w", context.DeadlineExceeded), want: true},
		{name: "condition failed", err: &types.ConditionalCheckFailedException{}, want: false},
		{name: "transaction cancelled", err: &types.TransactionCanceledException{}, want: false},
		{name: "client went away", err: context.Canceled, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unavailable(tt.err); got != tt.want {
				t.Errorf("unavailable(%v) = %v; want %v", tt.err, got, tt.want)
			}
		})
	}
}
