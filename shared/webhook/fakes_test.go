package webhook_test

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// store is an in-memory webhook.Store and webhook.DeliveryLog with what the use cases under test
// read and write: webhooks by id and deliveries, with the conditions those interfaces document.
// The embedded interfaces are nil: a method the tests do not use panics.
type store struct {
	webhook.Store
	webhook.DeliveryLog

	mu         sync.Mutex
	hooks      map[string]webhook.Webhook
	deliveries map[string]webhook.Delivery
}

func newStore(hooks []webhook.Webhook) *store {
	s := &store{hooks: map[string]webhook.Webhook{}, deliveries: map[string]webhook.Delivery{}}
	for _, w := range hooks {
		s.hooks[w.ID] = w
	}
	return s
}

func (s *store) delivery(id string) webhook.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deliveries[id]
}

func (s *store) Webhook(_ context.Context, teamID, id string) (webhook.Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.hooks[id]
	if !ok || w.TeamID != teamID {
		return webhook.Webhook{}, patio.NotFoundf("webhook %s not found", id)
	}
	return w, nil
}

func (s *store) Delivery(_ context.Context, id string) (webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.deliveries[id]
	if !ok {
		return d, patio.NotFoundf("delivery %s not found", id)
	}
	return d, nil
}

func (s *store) SetDeliveryStatus(_ context.Context, id string, from []string, status string, restart bool) (webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.deliveries[id]
	if !ok {
		return d, patio.NotFoundf("delivery %s not found", id)
	}
	if !slices.Contains(from, d.Status) {
		return d, patio.Conflictf("delivery %s is %s", id, d.Status)
	}
	d.Status = status
	if restart {
		d.Series, d.Attempt, d.FirstAttemptAt, d.NextAttemptAt = d.Series+1, 0, time.Time{}, nil
	}
	s.deliveries[id] = d
	return d, nil
}

// queue is a webhook.Queue that keeps what it is given, or refuses everything with err.
type queue struct {
	mu    sync.Mutex
	err   error
	tasks []webhook.Task
}

func (q *queue) Enqueue(_ context.Context, t webhook.Task) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.tasks = append(q.tasks, t)
	return nil
}

func (q *queue) EnqueueAll(ctx context.Context, ts []webhook.Task) []error {
	errs := make([]error, len(ts))
	for i, t := range ts {
		errs[i] = q.Enqueue(ctx, t)
	}
	return errs
}

func (q *queue) queued() []webhook.Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.tasks)
}
