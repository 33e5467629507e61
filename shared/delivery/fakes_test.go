package delivery_test

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The fakes below stand in for the adapters so that the service's rules can be tested alone. They
// are not about storage: store keeps just enough state, with the conditions Store documents,
// for several calls of the service to see each other's writes.

// store is an in-memory Store. The embedded interface is nil: a method the tests do not use
// panics, so the fake stays small when Store grows.
type store struct {
	delivery.Store
	delivery.DispatchStore
	delivery.SweepStore

	mu         sync.Mutex
	hooks      map[string]webhook.Webhook
	deliveries map[string]webhook.Delivery
	// fail makes the named method return the error, without effect, the next time it is called.
	fail map[string]error
	// disabledSince holds the first argument of each DisableForFailures call.
	disabledSince []time.Time
	claims        map[string]claim
	// warned holds when the warning email about each webhook last went out.
	warned map[string]time.Time
	// logged is the attempt log, by delivery.
	logged map[string][]webhook.Attempt
	// swept holds when the sweep last queued each delivery again (its due time in the store).
	swept map[string]time.Time
	// parked lists the deliveries ParkDelivery parked.
	parked []string
	// busy makes every AcquireSlots find no free slot.
	busy bool
}

// claim is a delivery's claim: its token and until when it lasts.
type claim struct {
	token string
	until time.Time
}

func newStore(hooks []webhook.Webhook, deliveries ...webhook.Delivery) *store {
	s := &store{hooks: map[string]webhook.Webhook{}, deliveries: map[string]webhook.Delivery{}, fail: map[string]error{},
		claims: map[string]claim{}, swept: map[string]time.Time{}, logged: map[string][]webhook.Attempt{},
		warned: map[string]time.Time{}}
	for _, w := range hooks {
		s.hooks[w.ID] = w
	}
	for _, d := range deliveries {
		s.deliveries[d.ID] = d
	}
	return s
}

// failing returns the error planned for method, once. The caller holds mu.
func (s *store) failing(method string) error {
	err := s.fail[method]
	delete(s.fail, method)
	return err
}

func (s *store) hook(id string) webhook.Webhook {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hooks[id]
}

func (s *store) delivery(id string) webhook.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deliveries[id]
}

func (s *store) Webhook(_ context.Context, teamID, id string) (webhook.Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("Webhook"); err != nil {
		return webhook.Webhook{}, err
	}
	w, ok := s.hooks[id]
	if !ok || w.TeamID != teamID {
		return webhook.Webhook{}, patio.NotFoundf("webhook %s not found", id)
	}
	return w, nil
}

func (s *store) TeamWebhooks(_ context.Context, teamID string) ([]webhook.Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhook.Webhook
	for _, w := range s.hooks {
		if w.TeamID == teamID {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b webhook.Webhook) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (s *store) NoteSuccess(_ context.Context, _, id string, t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("NoteSuccess"); err != nil {
		return err
	}
	w := s.hooks[id]
	if t.After(w.LastSuccessAt) {
		w.LastSuccessAt = t
	}
	s.hooks[id] = w
	return nil
}

func (s *store) DisableForFailures(_ context.Context, _, id string, first, _ time.Time, last webhook.Failure) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("DisableForFailures"); err != nil {
		return false, err
	}
	s.disabledSince = append(s.disabledSince, first)
	w := s.hooks[id]
	if w.Status != webhook.StatusActive || w.EnabledAt.After(first) || !w.LastSuccessAt.Before(first) {
		return false, nil
	}
	w.Status, w.AlertPending, w.LastFailure, w.Cancelled = webhook.StatusDisabled, true, &last, 0
	s.hooks[id] = w
	return true, nil
}

func (s *store) NoteCancelled(_ context.Context, _, id string, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.hooks[id]
	w.Cancelled += n
	s.hooks[id] = w
	return nil
}

func (s *store) ClaimWarning(_ context.Context, _, id string, first, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, warned := s.warned[id]
	if (warned && at.After(now.Add(-24*time.Hour))) || !s.hooks[id].LastSuccessAt.Before(first) {
		return false, nil
	}
	s.warned[id] = now
	return true, nil
}

func (s *store) ReleaseWarning(_ context.Context, _, id string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.warned[id].Equal(at) {
		delete(s.warned, id)
	}
	return nil
}

func (s *store) ClaimAlert(_ context.Context, _, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("ClaimAlert"); err != nil {
		return false, err
	}
	w := s.hooks[id]
	claimed := w.AlertPending
	w.AlertPending = false
	s.hooks[id] = w
	return claimed, nil
}

func (s *store) ReleaseAlert(_ context.Context, _, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.hooks[id]
	w.AlertPending = true
	s.hooks[id] = w
	return nil
}

func (s *store) CreateDeliveries(_ context.Context, ds []webhook.Delivery) ([]webhook.Delivery, []bool, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, created := make([]webhook.Delivery, len(ds)), make([]bool, len(ds))
	for i, d := range ds {
		if err := s.failing("CreateDeliveries"); err != nil {
			return stored, created, i, err
		}
		if got, ok := s.deliveries[d.ID]; ok {
			stored[i] = got
			continue
		}
		s.deliveries[d.ID] = d
		stored[i], created[i] = d, true
	}
	return stored, created, len(ds), nil
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

func (s *store) ClaimDelivery(_ context.Context, id string, series, n int, token string, now, until time.Time) (webhook.Delivery, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("ClaimDelivery"); err != nil {
		return webhook.Delivery{}, false, err
	}
	d, ok := s.deliveries[id]
	if !ok {
		return d, false, patio.NotFoundf("delivery %s not found", id)
	}
	c := s.claims[id]
	if d.Status != webhook.DeliveryPending || d.Series != series || d.Attempt != n-1 || (c.token != token && c.until.After(now)) {
		return d, false, nil
	}
	s.claims[id] = claim{token, until}
	return d, true, nil
}

func (s *store) RecordAttempt(_ context.Context, d webhook.Delivery, a webhook.Attempt, status, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("RecordAttempt"); err != nil {
		return err
	}
	cur := s.deliveries[d.ID]
	if cur.Status != webhook.DeliveryPending || cur.Series != a.Series || cur.Attempt != a.N-1 || s.claims[d.ID].token != token {
		return patio.Conflictf("delivery %s changed meanwhile", d.ID)
	}
	cur.Attempts = append(slices.Clone(cur.Attempts), a)
	cur.Status, cur.Attempt, cur.FirstAttemptAt, cur.NextAttemptAt = status, a.N, d.FirstAttemptAt, a.NextAttemptAt
	s.deliveries[d.ID] = cur
	delete(s.claims, d.ID)
	return nil
}

// The fake's slots: every acquisition gets what it asks for, unless busy is set; releasing notes
// the success as the store's gate does.
func (s *store) AcquireSlots(_ context.Context, _, _, _ string, want int, _, _ time.Time) ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return nil, nil
	}
	var slots []int
	for i := range min(want, delivery.MaxInFlight) {
		slots = append(slots, i)
	}
	return slots, nil
}

func (s *store) RenewSlots(_ context.Context, _, _, _ string, slots []int, _ time.Time) ([]int, error) {
	return slots, nil
}

func (s *store) ReleaseSlots(_ context.Context, teamID, id, _ string, _ []int, success time.Time) error {
	s.mu.Lock()
	err := s.failing("ReleaseSlots")
	s.mu.Unlock()
	if err != nil || success.IsZero() {
		return err
	}
	return s.NoteSuccess(context.Background(), teamID, id, success)
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

func (s *store) Deliveries(_ context.Context, webhookID, status string) ([]webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhook.Delivery
	for _, d := range s.deliveries {
		if d.WebhookID == webhookID && (status == "" || d.Status == status) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (s *store) LogAttempts(_ context.Context, entries []webhook.LoggedAttempt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("LogAttempts"); err != nil {
		return err
	}
	for _, e := range entries {
		s.logged[e.DeliveryID] = append(s.logged[e.DeliveryID], e.Attempt)
	}
	return nil
}

func (s *store) AttemptLog(_ context.Context, d webhook.Delivery) ([]webhook.Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.logged[d.ID]), nil
}

// ListDeliveries serves the first page only (the store's paging is tested on DynamoDB Local).
func (s *store) ListDeliveries(_ context.Context, webhookID string, q webhook.DeliveryQuery) ([]webhook.Delivery, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhook.Delivery
	for _, d := range s.deliveries {
		if d.WebhookID == webhookID && slices.Contains(q.Statuses, d.Status) &&
			(q.Since.IsZero() || !d.CreatedAt.Before(q.Since)) && (q.Until.IsZero() || !d.CreatedAt.After(q.Until)) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b webhook.Delivery) int { return cmp.Compare(b.ID, a.ID) })
	return out[:min(len(out), q.Limit)], "", nil
}

// due is when a pending delivery's next attempt is due as the store's index has it. The caller
// holds mu.
func (s *store) due(d webhook.Delivery) time.Time {
	if t, ok := s.swept[d.ID]; ok {
		return t
	}
	return d.DueAt()
}

func (s *store) OverdueDeliveries(_ context.Context, before time.Time, limit int) ([]webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhook.Delivery
	for _, d := range s.deliveries {
		if d.Status == webhook.DeliveryPending && s.due(d).Before(before) && len(out) < limit {
			due := s.due(d)
			d.NextAttemptAt = &due
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b webhook.Delivery) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (s *store) ParkDelivery(_ context.Context, id string, series, n int, token string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.deliveries[id]
	c, claimed := s.claims[id]
	if d.Status == webhook.DeliveryPending && d.Series == series && d.Attempt == n-1 && (!claimed || c.token == token) {
		delete(s.claims, id)
		s.swept[id] = now
		s.parked = append(s.parked, id)
	}
	return nil
}

func (s *store) MarkSwept(_ context.Context, d webhook.Delivery, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.deliveries[d.ID]
	if cur.Status != webhook.DeliveryPending || !s.due(cur).Equal(d.DueAt()) {
		return false, nil
	}
	s.swept[d.ID] = now
	return true, nil
}

// queue is a Queue that keeps what it is given, or refuses everything with err.
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

// sender is a webhook.Sender whose every attempt has result.
type sender struct {
	mu     sync.Mutex
	result webhook.Result
	posts  []post
}

type post struct {
	url     string
	headers map[string]string
	body    []byte
}

func (s *sender) Send(_ context.Context, url string, headers map[string]string, body []byte) webhook.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = append(s.posts, post{url, headers, body})
	return s.result
}

func (s *sender) sent() []post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.posts)
}

// mailer is a webhook.Mailer that keeps the alerts it sends, or fails every send with err.
type mailer struct {
	mu     sync.Mutex
	err    error
	alerts []alert
}

type alert struct{ to, subject, text string }

func (m *mailer) SendAlert(_ context.Context, to, subject, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.alerts = append(m.alerts, alert{to, subject, text})
	return nil
}

func (m *mailer) sent() []alert {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.alerts)
}

// teams is a webhook.Teams over a fixed set of teams.
type teams map[string]patio.Team

func (ts teams) Team(_ context.Context, id string) (patio.Team, error) {
	t, ok := ts[id]
	if !ok {
		return t, patio.NotFoundf("team %s not found", id)
	}
	return t, nil
}
