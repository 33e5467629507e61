package webhook

import "time"

// WaitFor exposes Deliverer.wait to the tests of package webhook_test.
func WaitFor(d *Deliverer, t Task, now time.Time, retry time.Duration) Task {
	return d.wait(t, now, retry)
}
