package delivery

import (
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// WaitFor exposes Deliverer.wait to the tests of package delivery_test.
func WaitFor(d *Deliverer, t webhook.Task, now time.Time, retry time.Duration, reason string) webhook.Task {
	return d.wait(t, now, retry, reason)
}
