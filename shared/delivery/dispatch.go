package delivery

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// DefaultSubscriberCache is how long a team's webhook list is reused by a Dispatcher.
const DefaultSubscriberCache = 5 * time.Second

// Dispatcher turns changes into deliveries: one pending delivery and queued first attempt per
// (event, active subscribed webhook), one skipped delivery per (event, disabled subscribed webhook).
// A webhook receives only the events of changes made at or after its creation (both times to the
// second), so re-processing old stream records never reaches a webhook created since; a deleted
// webhook receives nothing. It does no HTTP. Re-dispatching a change creates nothing new (ids are
// deterministic). Use it through a pointer: it keeps each team's webhook list for a few seconds.
type Dispatcher struct {
	Store DispatchStore
	Queue Queue
	// Audit, when set, receives the audit entry of every change an API key made (webhook.Change's
	// By): the public API's changes reach a team's audit log, and a record's history, from here,
	// off the request's path. The console's changes are audited where they are made.
	Audit  Auditor
	Now    func() time.Time
	Logger *slog.Logger
	// CacheFor is how long a team's webhook list may be reused (DefaultSubscriberCache when zero).
	// A list read at t serves only changes made before t (less a second, as change times have
	// one-second precision), so a webhook created since never misses a change made after its
	// creation; CacheFor only bounds how long a disable or an edit may go unseen by dispatches of
	// older changes (the deliverer checks the webhook again before every attempt).
	CacheFor time.Duration

	mu    sync.Mutex
	cache map[string]subscribers
}

// subscribers is a team's webhook list as read at a time.
type subscribers struct {
	hooks []webhook.Webhook
	read  time.Time
}

// Dispatch handles a batch of changes, in order, and returns how many of them are done: all of
// them, or, with an error, those before the first change that must be dispatched again (with every
// change after it). What was already done is not repeated then. The audit entries are written
// while the deliveries are stored (neither needs the other), so that a change reaches its
// webhooks' queue one store round trip sooner; the first attempts are queued once both are done,
// and none when an entry could not be written.
func (d *Dispatcher) Dispatch(ctx context.Context, changes []webhook.Change) (int, error) {
	events, newest, stop, stErr := derive(changes)
	type outcome struct {
		n   int
		err error
	}
	audited := make(chan outcome, 1)
	go func() {
		n, err := d.audit(ctx, changes[:stop])
		audited <- outcome{n, err}
	}()
	tasks, n, err := d.stored(ctx, changes[:stop], events, newest)
	if a := <-audited; a.err != nil {
		if err != nil && n < a.n {
			return n, err
		}
		return a.n, a.err
	}
	if n, err := d.enqueue(ctx, tasks, clock(d.Now)); err != nil {
		return n, err
	}
	if err != nil {
		return n, err
	}
	return stop, stErr
}

// stored reads the webhooks of the changes' teams and stores the changes' deliveries. It returns
// the first attempts to queue and len(changes), or, with an error, the first change to dispatch
// again (the attempts returned then are those of the changes before it).
func (d *Dispatcher) stored(ctx context.Context, changes []webhook.Change, events [][]webhook.Event,
	newest map[string]time.Time) (firstAttempts, int, error) {
	hooks, stop, stErr := d.hooksOf(ctx, changes, events, newest)
	now := clock(d.Now)
	plan, n, err := planDeliveries(changes[:stop], events, hooks, now)
	if err != nil {
		return firstAttempts{}, n, err
	}
	if len(plan) == 0 {
		return firstAttempts{}, stop, stErr
	}
	tasks, err := d.store(ctx, plan, now)
	if err != nil {
		return firstAttempts{}, tasks.failed, err
	}
	return tasks, stop, stErr
}

// planned is a delivery to store for one event of a change.
type planned struct {
	change int // the change's index in the batch
	del    webhook.Delivery
	at     time.Time // the event's time, for the dispatch lag metric
}

// firstAttempts are the first attempts of a batch's stored deliveries, to queue.
type firstAttempts struct {
	tasks  []webhook.Task
	owner  []int       // the change of each task
	lags   []time.Time // the event time of each task
	failed int         // with an error storing them, the first change to dispatch again
}

// derive returns the events of each change and, per team, the latest event time; stop is the
// first change whose events could not be derived (len(changes) when none), with its error.
func derive(changes []webhook.Change) (events [][]webhook.Event, newest map[string]time.Time, stop int, err error) {
	newest = map[string]time.Time{}
	events = make([][]webhook.Event, len(changes))
	for i, c := range changes {
		evs, err := webhook.Derive(c)
		if err != nil {
			return events, newest, i, err
		}
		events[i] = evs
		for _, e := range evs {
			if t := e.Recorded; t.After(newest[c.TeamID]) {
				newest[c.TeamID] = t
			}
		}
	}
	return events, newest, len(changes), nil
}

// hooksOf reads the webhooks of each team with events among changes; with an error, the index of
// the first change whose team's could not be read.
func (d *Dispatcher) hooksOf(ctx context.Context, changes []webhook.Change, events [][]webhook.Event,
	newest map[string]time.Time) (map[string][]webhook.Webhook, int, error) {
	hooks := map[string][]webhook.Webhook{}
	for i, c := range changes {
		if _, ok := hooks[c.TeamID]; ok || len(events[i]) == 0 {
			continue
		}
		hs, err := d.subscribers(ctx, c.TeamID, newest[c.TeamID])
		if err != nil {
			return hooks, i, err
		}
		hooks[c.TeamID] = hs
	}
	return hooks, len(changes), nil
}

// planDeliveries returns a delivery per (event, subscribed webhook not deleted): pending for an active
// webhook, skipped for a disabled one; with an error, the index of the change whose payload failed.
func planDeliveries(changes []webhook.Change, events [][]webhook.Event, hooks map[string][]webhook.Webhook, now time.Time) ([]planned, int, error) {
	var out []planned
	for i := range changes {
		for _, e := range events[i] {
			for _, w := range hooks[changes[i].TeamID] {
				if !w.Receives(e) || w.Status == webhook.StatusDeleted {
					continue
				}
				payload, err := e.Payload(w.ID)
				if err != nil {
					return out, i, err
				}
				del := webhook.Delivery{
					ID: webhook.DeliveryID(e.ID, w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: e.ID, EventType: e.Type,
					Status: webhook.DeliveryPending, Payload: payload, CreatedAt: now, UpdatedAt: now,
				}
				if w.Status != webhook.StatusActive {
					del.Status = webhook.DeliverySkipped
				}
				out = append(out, planned{change: i, del: del, at: e.CreatedAt.Time()})
			}
		}
	}
	return out, len(changes), nil
}

// store creates the planned deliveries and returns the first attempts to queue: those of the
// pending deliveries not attempted yet.
func (d *Dispatcher) store(ctx context.Context, plan []planned, now time.Time) (firstAttempts, error) {
	ds := make([]webhook.Delivery, len(plan))
	for i, p := range plan {
		ds[i] = p.del
	}
	stored, created, n, err := d.Store.CreateDeliveries(ctx, ds)
	if err != nil {
		return firstAttempts{failed: plan[n].change}, err
	}
	var out firstAttempts
	log := logger(d.Logger)
	for i, del := range stored {
		if del.Status == webhook.DeliverySkipped && created[i] {
			log.InfoContext(ctx, "delivery skipped: webhook disabled", slog.String("event_id", del.EventID),
				slog.String("webhook_id", del.WebhookID), slog.String("team_id", del.TeamID))
		}
		// A delivery found pending before its first attempt may have lost its message to an
		// interrupted dispatch: it is queued again, as a copy (the deliverer claims a copy's
		// attempt, so the two messages make one attempt).
		if del.Status != webhook.DeliveryPending || del.Series != 0 || del.Attempt != 0 {
			continue
		}
		out.tasks = append(out.tasks, webhook.Task{DeliveryID: del.ID, TeamID: del.TeamID, WebhookID: del.WebhookID,
			EventID: del.EventID, Attempt: 1, Due: now, Copy: !created[i]})
		out.owner = append(out.owner, plan[i].change)
		out.lags = append(out.lags, plan[i].at)
	}
	return out, nil
}

// enqueue queues the first attempts; with an error, the change of the first that failed.
func (d *Dispatcher) enqueue(ctx context.Context, a firstAttempts, now time.Time) (int, error) {
	if len(a.tasks) == 0 {
		return 0, nil
	}
	log := logger(d.Logger)
	for i, err := range d.Queue.EnqueueAll(ctx, a.tasks) {
		if err != nil {
			return a.owner[i], err
		}
		t := a.tasks[i]
		log.InfoContext(ctx, "delivery queued", slog.String("event_id", t.EventID),
			slog.String("webhook_id", t.WebhookID), slog.String("team_id", t.TeamID),
			slog.String("delivery_id", t.DeliveryID),
			slog.Int64("dispatch_lag_ms", now.Sub(a.lags[i]).Milliseconds())) // emf: DispatchLag
	}
	return 0, nil
}

// audit records the audit entries of the changes that API keys made. On error it returns the first
// change whose entry may be missing: it and every change after it are dispatched again, and the
// entries already written are written again, unchanged (their ids derive from the stream record).
func (d *Dispatcher) audit(ctx context.Context, changes []webhook.Change) (int, error) {
	if d.Audit == nil {
		return len(changes), nil
	}
	var (
		entries []patio.AuditEntry
		first   = -1
	)
	for i, c := range changes {
		if c.By == "" {
			continue
		}
		e, ok := patio.ChangeAudit(c.TeamID, c.Resource, c.Old, c.New)
		if !ok {
			continue
		}
		if first < 0 {
			first = i
		}
		e.ID = uuid.NewSHA1(auditSpace, []byte(c.SourceID)).String()
		e.Actor = patio.Actor{Kind: patio.ActorKey, ID: c.By}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return len(changes), nil
	}
	if err := d.Audit.RecordAudits(ctx, entries); err != nil {
		return first, err
	}
	return len(changes), nil
}

// auditSpace is the namespace of the audit entries' ids the dispatcher derives from stream
// records.
var auditSpace = uuid.MustParse("5b0e6d1c-3f43-4e4b-9f0c-6a1d2f7c9e10")

// subscribers returns a team's webhooks, from the cache when the list there was read late enough
// for changes made up to newest, and fresh enough.
func (d *Dispatcher) subscribers(ctx context.Context, teamID string, newest time.Time) ([]webhook.Webhook, error) {
	ttl := d.CacheFor
	if ttl <= 0 {
		ttl = DefaultSubscriberCache
	}
	now := clock(d.Now)
	d.mu.Lock()
	c, ok := d.cache[teamID]
	d.mu.Unlock()
	// Change times are whole seconds and a webhook's write lands shortly after its creation time:
	// a list read more than a second after the newest change saw every webhook created up to it.
	if ok && newest.Add(time.Second).Before(c.read) && now.Sub(c.read) < ttl {
		return c.hooks, nil
	}
	hooks, err := d.Store.TeamWebhooks(ctx, teamID)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cache == nil {
		d.cache = map[string]subscribers{}
	}
	if len(d.cache) > 10000 {
		clear(d.cache)
	}
	d.cache[teamID] = subscribers{hooks: hooks, read: now}
	return hooks, nil
}
