package workers_test

import (
	"testing"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/sqsqueue"
)

// Package app holds WEBHOOK_MAX_HOP's default without linking the queue adapter; it must stay SQS's
// longest delay, or a hop would ask SQS for a delay it refuses.
func TestDefaultMaxHopIsTheQueuesLongestDelay(t *testing.T) {
	if app.DefaultMaxHop != sqsqueue.MaxDelay {
		t.Fatalf("app.DefaultMaxHop = %v; sqsqueue.MaxDelay = %v", app.DefaultMaxHop, sqsqueue.MaxDelay)
	}
}
