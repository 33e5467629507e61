package delivery

import (
	"sync"

	"github.com/patio-dev/patio/shared/webhook"
)

// outbox collects the tasks a batch queues, each with the index of the task it comes from.
type outbox struct {
	mu    sync.Mutex
	tasks []webhook.Task
	from  []int
}

// add puts t in the outbox, as the follow-up of the batch's task from.
func (o *outbox) add(t webhook.Task, from int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tasks = append(o.tasks, t)
	o.from = append(o.from, from)
}
