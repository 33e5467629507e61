package delivery

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// DefaultSubscriberCache is how long a team's webhook list is reused by a Dispatcher, unchecked,
// for changes made before it was read.
const DefaultSubscriberCache = 5 * time.Second

// guessFor is how long a team's webhook list is kept as a guess for its changes made after it was
// read: their deliveries are stored from it while the list is read again, and set right from the
// list as read (see Dispatcher.stored). A guess is never trusted, so its age bounds only how often
// it is wrong, never what a webhook receives.
const guessFor = 15 * time.Minute

// Dispatcher turns changes into deliveries: one pending delivery and queued first attempt per
// (event, active subscribed webhook), one skipped delivery per (event, disabled subscribed webhook).
// A webhook receives only the events of changes made at or after its creation (both times to the
// second), so re-processing old stream records never reaches a webhook created since; a deleted
// webhook receives nothing. It does no HTTP. Re-dispatching a change creates nothing new (ids are
// deterministic). Use it through a pointer: it keeps each team's webhook list (see CacheFor, guessFor).
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
	// older changes (the deliverer checks the webhook again before every attempt). A change made
	// after the list was read is dispatched with a list read again, in the same round as its
	// deliveries are stored from the kept one (Dispatcher.stored).
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
//
// A team whose list this Dispatcher read before (guessFor) but too early for the changes at hand
// has it read again while the deliveries are stored from the list kept: the list read then says
// which webhooks the changes go to, and the deliveries it plans otherwise are set right before any
// is queued (see settle). So a change's deliveries are stored one round sooner, and a webhook
// created (enabled, subscribed) in the meantime still gets every change made from its creation on.
func (d *Dispatcher) stored(ctx context.Context, changes []webhook.Change, events [][]webhook.Event,
	newest map[string]time.Time) (firstAttempts, int, error) {
	hooks, guessed, stop, stErr := d.hooksOf(ctx, changes, events, newest)
	checked := d.recheck(ctx, guessed)
	now := clock(d.Now)
	plan, n, err := planDeliveries(changes[:stop], events, hooks, now)
	if err != nil {
		<-checked
		return firstAttempts{}, n, err
	}
	tasks := firstAttempts{created: map[string]bool{}}
	if len(plan) > 0 {
		if tasks, err = d.store(ctx, plan, now); err != nil {
			<-checked
			return firstAttempts{}, tasks.failed, err
		}
	}
	fresh := <-checked
	if fresh.err != nil {
		n := firstOf(changes[:stop], fresh.failed)
		return tasks.before(n), n, fresh.err
	}
	if len(guessed) > 0 {
		maps.Copy(hooks, fresh.hooks)
		if tasks, err = d.settle(ctx, changes[:stop], events, hooks, plan, tasks, now); err != nil {
			return tasks.before(tasks.failed), tasks.failed, err
		}
	}
	return tasks, stop, stErr
}

// settle sets the deliveries stored from guessed lists right by the lists as read again (hooks),
// before any is queued: the deliveries the guess missed are stored, and those this dispatch
// created that the lists plan with another status (a webhook disabled or enabled meanwhile) move
// to it, or, not planned at all (deleted, or no longer subscribed), to cancelled. It returns the
// first attempts to queue; with an error, failed is the first change to dispatch again.
func (d *Dispatcher) settle(ctx context.Context, changes []webhook.Change, events [][]webhook.Event,
	hooks map[string][]webhook.Webhook, guess []planned, tasks firstAttempts, now time.Time) (firstAttempts, error) {
	want, n, err := planDeliveries(changes, events, hooks, now)
	if err != nil {
		tasks.failed = n
		return tasks, err
	}
	guessed := map[string]planned{}
	for _, p := range guess {
		guessed[p.del.ID] = p
	}
	var missing, moved []planned
	planned := map[string]bool{}
	for _, p := range want {
		planned[p.del.ID] = true
		switch g, ok := guessed[p.del.ID]; {
		case !ok:
			missing = append(missing, p)
		case g.del.Status != p.del.Status && tasks.created[p.del.ID]:
			moved = append(moved, p)
		}
	}
	for _, g := range guess {
		if !planned[g.del.ID] && tasks.created[g.del.ID] && g.del.Status == webhook.DeliveryPending {
			g.del.Status = webhook.DeliveryCancelled
			moved = append(moved, g)
		}
	}
	if len(missing) == 0 && len(moved) == 0 {
		return tasks, nil
	}
	logger(d.Logger).InfoContext(ctx, "webhook list changed since it was kept: deliveries set right",
		slog.Int("stored", len(missing)), slog.Int("moved", len(moved)))
	tasks, err = d.move(ctx, moved, tasks, now)
	if err != nil || len(missing) == 0 {
		return tasks, err
	}
	more, err := d.store(ctx, missing, now)
	if err != nil {
		tasks.failed = more.failed
		return tasks, err
	}
	return tasks.add(more), nil
}

// move gives each of the deliveries created from a guess the status planned (p.del.Status), and
// returns the first attempts to queue after it: without those no longer pending, with those now
// pending.
func (d *Dispatcher) move(ctx context.Context, moved []planned, tasks firstAttempts, now time.Time) (firstAttempts, error) {
	to := map[string]string{}
	for _, p := range moved {
		from := webhook.DeliveryPending
		if p.del.Status == webhook.DeliveryPending {
			from = webhook.DeliverySkipped
		}
		if _, err := d.Store.SetDeliveryStatus(ctx, p.del.ID, []string{from}, p.del.Status, false); ignoreConflict(err) != nil {
			tasks.failed = p.change
			return tasks, err
		}
		to[p.del.ID] = p.del.Status
	}
	out := firstAttempts{created: tasks.created}
	for i, t := range tasks.tasks {
		if s, ok := to[t.DeliveryID]; !ok || s == webhook.DeliveryPending {
			out.tasks, out.owner, out.lags = append(out.tasks, t), append(out.owner, tasks.owner[i]), append(out.lags, tasks.lags[i])
		}
	}
	for _, p := range moved {
		if p.del.Status == webhook.DeliveryPending {
			out.tasks = append(out.tasks, webhook.Task{DeliveryID: p.del.ID, TeamID: p.del.TeamID, WebhookID: p.del.WebhookID,
				EventID: p.del.EventID, Attempt: 1, Due: now})
			out.owner, out.lags = append(out.owner, p.change), append(out.lags, p.at)
		}
	}
	return out, nil
}

// rechecked is the webhook lists of the guessed teams as read again; with err, failed is the team
// whose list could not be read.
type rechecked struct {
	hooks  map[string][]webhook.Webhook
	failed string
	err    error
}

// recheck reads the lists of teams again, side by side, and sends them once all are read.
func (d *Dispatcher) recheck(ctx context.Context, teams []string) <-chan rechecked {
	out := make(chan rechecked, 1)
	if len(teams) == 0 {
		out <- rechecked{}
		return out
	}
	go func() {
		r := rechecked{hooks: map[string][]webhook.Webhook{}}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, team := range teams {
			wg.Go(func() {
				hs, err := d.read(ctx, team)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					r.failed, r.err = team, err
					return
				}
				r.hooks[team] = hs
			})
		}
		wg.Wait()
		out <- r
	}()
	return out
}

// firstOf returns the index of the first change of team (len(changes) when none).
func firstOf(changes []webhook.Change, team string) int {
	for i, c := range changes {
		if c.TeamID == team {
			return i
		}
	}
	return len(changes)
}

// planned is a delivery to store for one event of a change.
type planned struct {
	change int // the change's index in the batch
	del    webhook.Delivery
	at     time.Time // the event's time, for the dispatch lag metric
}

// firstAttempts are the first attempts of a batch's stored deliveries, to queue.
type firstAttempts struct {
	tasks   []webhook.Task
	owner   []int           // the change of each task
	lags    []time.Time     // the event time of each task
	created map[string]bool // the deliveries this dispatch created, by id
	failed  int             // with an error storing them, the first change to dispatch again
}

// before returns the attempts of the changes before change n.
func (a firstAttempts) before(n int) firstAttempts {
	out := firstAttempts{created: a.created}
	for i, t := range a.tasks {
		if a.owner[i] < n {
			out.tasks, out.owner, out.lags = append(out.tasks, t), append(out.owner, a.owner[i]), append(out.lags, a.lags[i])
		}
	}
	return out
}

// add appends b's attempts to a's.
func (a firstAttempts) add(b firstAttempts) firstAttempts {
	a.tasks, a.owner, a.lags = append(a.tasks, b.tasks...), append(a.owner, b.owner...), append(a.lags, b.lags...)
	maps.Copy(a.created, b.created)
	return a
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

// hooksOf returns the webhooks of each team with events among changes, and the teams whose list is
// a guess (kept from before the changes, to be read again); with an error, the index of the first
// change whose team's could not be read.
func (d *Dispatcher) hooksOf(ctx context.Context, changes []webhook.Change, events [][]webhook.Event,
	newest map[string]time.Time) (hooks map[string][]webhook.Webhook, guessed []string, stop int, err error) {
	hooks = map[string][]webhook.Webhook{}
	for i, c := range changes {
		if _, ok := hooks[c.TeamID]; ok || len(events[i]) == 0 {
			continue
		}
		hs, guess, err := d.subscribers(ctx, c.TeamID, newest[c.TeamID])
		if err != nil {
			return hooks, guessed, i, err
		}
		hooks[c.TeamID] = hs
		if guess {
			guessed = append(guessed, c.TeamID)
		}
	}
	return hooks, guessed, len(changes), nil
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
	out := firstAttempts{created: map[string]bool{}}
	log := logger(d.Logger)
	for i, del := range stored {
		if created[i] {
			out.created[del.ID] = true
		}
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

// subscribers returns a team's webhooks: from the cache when the list there was read late enough
// for changes made up to newest, and fresh enough (CacheFor); else the list kept, as a guess to
// check (guess true), when one was read within guessFor; else as read now.
func (d *Dispatcher) subscribers(ctx context.Context, teamID string, newest time.Time) (hooks []webhook.Webhook, guess bool, err error) {
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
	switch {
	case ok && newest.Add(time.Second).Before(c.read) && now.Sub(c.read) < ttl:
		return c.hooks, false, nil
	case ok && now.Sub(c.read) < guessFor:
		return c.hooks, true, nil
	}
	hooks, err = d.read(ctx, teamID)
	return hooks, false, err
}

// read reads a team's webhooks and keeps them, as read at the Dispatcher's now.
func (d *Dispatcher) read(ctx context.Context, teamID string) ([]webhook.Webhook, error) {
	now := clock(d.Now)
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
	if c, ok := d.cache[teamID]; !ok || !c.read.After(now) {
		d.cache[teamID] = subscribers{hooks: hooks, read: now}
	}
	return hooks, nil
}
