package patio

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindOf(t *testing.T) {
	cause := errors.New("ProvisionedThroughputExceededException")
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{name: "plain error", err: cause, want: KindInternal},
		{name: "unavailable", err: Unavailable(cause), want: KindUnavailable},
		{name: "wrapped unavailable", err: fmt.Errorf("store: put vehicle v1: %w", Unavailable(cause)), want: KindUnavailable},
		{name: "internal caused by unavailable", err: Internal(fmt.Errorf("op: %w", Unavailable(cause))), want: KindUnavailable},
		{name: "internal", err: Internal(cause), want: KindInternal},
		{name: "not found", err: NotFoundf("vehicle %s", "v1"), want: KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.err); got != tt.want {
				t.Errorf("KindOf(%v) = %v; want %v", tt.err, got, tt.want)
			}
			if !IsKind(tt.err, tt.want) && tt.name != "plain error" {
				t.Errorf("IsKind(%v, %v) = false; want true", tt.err, tt.want)
			}
		})
	}
}
