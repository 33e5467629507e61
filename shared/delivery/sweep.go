package delivery

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// sweepPage bounds the deliveries one sweep reads at once.
const sweepPage = 500

// Sweeper recovers deliveries whose queue message was lost (a local restart emptied the emulated
// queue, a message went to the dead-letter queue): every pending delivery whose next attempt is
// more than After overdue gets that attempt queued again. It is idempotent with the normal path:
// its tasks are copies, which the deliverer claims before sending, and an attempt late enough for
// the sweep is claimed too, so a message that was only late and the sweep's copy send it once
// (delivery stays at least once).
type Sweeper struct {
	Store SweepStore
	Queue Queue
	// After is how overdue an attempt must be (webhook.DefaultSweepAfter when zero).
	After  time.Duration
	Now    func() time.Time
	Logger *slog.Logger
}

// Sweep queues again the attempts overdue by more than After, and returns how many. Each swept
// delivery's due time is moved to now, so it is not swept again before After has passed once
// more.
func (s Sweeper) Sweep(ctx context.Context) (int, error) {
	after := s.After
	if after <= 0 {
		after = webhook.DefaultSweepAfter
	}
	now := clock(s.Now)
	total := 0
	for {
		overdue, err := s.Store.OverdueDeliveries(ctx, now.Add(-after), sweepPage)
		if err != nil || len(overdue) == 0 {
			return total, err
		}
		tasks := make([]webhook.Task, len(overdue))
		for i, d := range overdue {
			tasks[i] = webhook.Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
				Series: d.Series, Attempt: d.Attempt + 1, Due: d.DueAt(), Copy: true}
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			first error
			n     int
		)
		for i, err := range s.Queue.EnqueueAll(ctx, tasks) {
			if err != nil {
				mu.Lock()
				first = cmpErr(first, err)
				mu.Unlock()
				continue
			}
			wg.Go(func() {
				ok, err := s.Store.MarkSwept(ctx, overdue[i], now)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					first = cmpErr(first, err)
					return
				}
				if ok {
					n++
				}
				logFor(s.Logger, tasks[i]).WarnContext(ctx, "overdue attempt queued again by the sweep",
					slog.Time("due", tasks[i].Due))
			})
		}
		wg.Wait()
		total += n
		if first != nil {
			return total, first
		}
		if len(overdue) < sweepPage {
			return total, nil
		}
	}
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
