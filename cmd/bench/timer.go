package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The timer budgets (issue 12, docs/webhooks.md): a tick with nothing due makes at most 2
// DynamoDB calls, and with the production tick period a timed event is recorded for delivery
// within a minute of its scheduled instant (p99).
const (
	timerIdleBudget  = 2
	timerDelayBudget = time.Minute
)

// timerOptions are the timer bench's flags.
type timerOptions struct {
	activities int           // activities of one team, due over the next 30 days, for the tick reads
	due        int           // records falling due over spread, for the delays
	spread     time.Duration // how long the due ones fall due over
	lead       time.Duration // how long before its instant each of them is written
}

// tickRow is what one measured tick did.
type tickRow struct {
	name     string
	window   string // the tick's window, UTC
	expected int    // alarms of the seeded team in the window
	calls    int    // DynamoDB calls
	queries  int    // Query calls (the index reads)
	scanned  int    // index entries the queries examined
	gets     int    // GetItem calls (a record read before it fires)
	fired    int
}

// timerReport is what the timer bench measured.
type timerReport struct {
	o       timerOptions
	seedDur time.Duration
	ticks   []tickRow
	delay   lagStats
	missing int
	arrived int
	bad     int
	elapsed time.Duration
}

// runTimerBench measures the timer of activities and financial records on tables of its own:
// what single ticks read with o.activities activities of one team falling due over 30 days; then
// the delay from each timed event's scheduled instant to its delivery being recorded, with the
// production tick period and the local pipeline running.
func runTimerBench(ctx context.Context, o timerOptions) (*timerReport, error) {
	started := time.Now()
	b, err := setupWebhookBench(ctx, webhookOptions{})
	if err != nil {
		return nil, err
	}
	defer b.recv.srv.Close()
	rep := &timerReport{o: o}
	// The ticks first: their activities fall due from the next UTC midnight + 1 h on, so the
	// delays part, whose timer runs on the real clock, fires none of them.
	if err := b.timerTicks(ctx, rep); err != nil {
		return nil, err
	}
	if err := b.timerDelays(ctx, rep); err != nil {
		return nil, err
	}
	rep.elapsed = time.Since(started)
	return rep, nil
}

// timerDelays writes o.due activities whose due soon falls due over o.spread, each written o.lead
// before its instant (so a tick may have read its window before the write, as happens in use),
// with the dispatcher, the deliverer and the timer ticking every app.TimerPeriod (production's
// schedule) running, and measures scheduled instant → delivery recorded (the dispatcher's write of
// the delivery row: the event recorded for delivery, where the one-minute promise of timed events
// is measured).
func (b *whBench) timerDelays(ctx context.Context, rep *timerReport) error {
	o := rep.o
	team, err := storeTeam(ctx, b.store, "Timer bench")
	if err != nil {
		return err
	}
	recv := newBenchReceiver(0)
	defer recv.srv.Close()
	hook, err := webhook.New(team.ID, recv.srv.URL+"/in", []string{webhook.ActivityDueSoon}, time.Now().Add(-time.Minute))
	if err != nil {
		return err
	}
	recv.secret = hook.Secret
	if err := b.store.Webhooks().CreateWebhook(ctx, hook); err != nil {
		return err
	}
	timer, err := app.NewTimer(b.cfg, b.conf, app.TimerPeriod)
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	waitPipe, err := b.startPipeline(runCtx, b.conf, "ActivitiesTable")
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { localaws.RunTimer(runCtx, app.TimerPeriod, timer.Tick, b.logger) })
	defer func() { stop(); wg.Wait(); waitPipe() }()

	progress("timer: %d due soons falling due over %s, each written %s ahead, ticks every %s", o.due, o.spread, o.lead, app.TimerPeriod)
	activities := patio.NewActivities(b.store.Activities())
	first := time.Now().Add(o.lead + 5*time.Second)
	scheduled := map[string]time.Time{}
	for i := range o.due {
		at := first.Add(time.Duration(i) * o.spread / time.Duration(o.due))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(at.Add(-o.lead))):
		}
		a, err := activities.Create(ctx, team.ID, patio.ActivityInput{Type: patio.Some("call"),
			Title: patio.Some(fmt.Sprintf("Retorno %d", i)), DueAt: patio.Some(patio.NewTimestamp(at.Add(24 * time.Hour)))})
		if err != nil {
			return err
		}
		scheduled[a.ID] = a.DueSoonAt()
	}
	recorded := map[string]time.Time{}
	seen := map[string]bool{} // deliveries whose record was read
	deadline := first.Add(o.spread + 3*app.TimerPeriod)
	for len(recorded) < o.due && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
		ds, err := b.store.DeliveryLog().Deliveries(ctx, hook.ID, "")
		if err != nil {
			return err
		}
		for _, d := range ds {
			if seen[d.ID] {
				continue
			}
			// The webhook's delivery list carries no payload: the record has it.
			if d, err = b.store.DeliveryLog().Delivery(ctx, d.ID); err != nil {
				return err
			}
			seen[d.ID] = true
			var ev struct {
				Data struct {
					Object struct {
						ID string `json:"id"`
					} `json:"object"`
				} `json:"data"`
			}
			if json.Unmarshal(d.Payload, &ev) == nil {
				recorded[ev.Data.Object.ID] = d.CreatedAt
			}
		}
	}
	rep.delay, rep.missing = lags(scheduled, recorded, nil)
	recv.mu.Lock()
	rep.arrived, rep.bad = len(recv.arrived[hook.ID]), recv.bad
	recv.mu.Unlock()
	return nil
}

// timerTicks seeds o.activities activities of one team whose due soons fall due over the 30 days
// from the next UTC midnight + 1 h, and measures single ticks (the production lookahead) at chosen
// instants of the timer's clock: the DynamoDB calls each makes and the index entries it reads,
// beside the team's alarms due by the end of its window (every one of them is pending: none has
// fired before). With nothing due, the 00:30 UTC tick is the one whose window a day-partitioned
// index would have split over two days.
func (b *whBench) timerTicks(ctx context.Context, rep *timerReport) error {
	o := rep.o
	team, err := storeTeam(ctx, b.store, "Timer ticks")
	if err != nil {
		return err
	}
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	progress("timer: seeding %d activities of one team whose due soons fall due over 30 days from %s", o.activities, midnight.Add(time.Hour).Format(time.RFC3339))
	// The first due_at at midnight + 25 h: due soons from midnight + 1 h.
	start, step := midnight.Add(25*time.Hour), 30*24*time.Hour/time.Duration(o.activities)
	seeded, err := history(o.activities, time.Now(), 0, func(i int, id string, at time.Time) (patio.Activity, error) {
		w, err := patio.NewActivity(team.ID, id, at, patio.ActivityInput{Type: patio.Some("task"),
			Title: patio.Some(fmt.Sprintf("Tarefa %d", i)), DueAt: patio.Some(patio.NewTimestamp(start.Add(time.Duration(i) * step)))})
		return w.Record, err
	})
	if err != nil {
		return err
	}
	if rep.seedDur, err = seedAll(ctx, b.store, seeded); err != nil {
		return err
	}

	rec, cfg, err := newRecorder(b.cfg)
	if err != nil {
		return err
	}
	timer, err := app.NewTimer(cfg, b.conf, app.TimerPeriod)
	if err != nil {
		return err
	}
	first := midnight.Add(time.Hour)
	for _, tk := range []struct {
		name string
		at   time.Time // zero: the real clock
	}{
		{"nothing due, now", time.Time{}},
		{"nothing due, 00:30 UTC", midnight.Add(30 * time.Minute)},
		{"the first due soons due, 01:10 UTC", first.Add(10 * time.Minute)},
	} {
		progress("timer: one tick, %s", tk.name)
		timer.Now = nil
		now := time.Now()
		if !tk.at.IsZero() {
			shift := time.Until(tk.at)
			timer.Now = func() time.Time { return time.Now().Add(shift) }
			now = tk.at
		}
		to := now.Add(app.TimerPeriod)
		row := tickRow{name: tk.name, window: "… – " + to.UTC().Format("01-02 15:04")}
		for _, a := range seeded {
			if al, ok := a.NextAlarm(); ok && !al.At.After(to) {
				row.expected++
			}
		}
		calls, err := rec.record(func() error {
			n, err := timer.Tick(ctx)
			row.fired = n
			return err
		})
		if err != nil {
			return err
		}
		row.calls = len(calls)
		for _, c := range calls {
			switch c.op {
			case "Query":
				row.queries++
				row.scanned += max(c.scanned, 0)
			case "GetItem":
				row.gets++
			}
		}
		rep.ticks = append(rep.ticks, row)
	}
	return nil
}

func printTimerReport(w io.Writer, r *timerReport) {
	fmt.Fprintf(w, "\nTimer of activities and financial records (production lookahead %s)\n\n", app.TimerPeriod)
	fmt.Fprintf(w, "One tick, %d activities of one team falling due over 30 days from the next 01:00 UTC (seeded in %s)\n", r.o.activities, r.seedDur.Round(time.Second))
	fmt.Fprintf(w, "  %-52s %-24s %8s %8s %8s %8s %8s %6s\n", "", "window (UTC)", "due", "index", "records", "fired", "calls", "queries")
	for _, t := range r.ticks {
		fmt.Fprintf(w, "  %-52s %-24s %8d %8d %8d %8d %8d %6d\n", t.name, t.window, t.expected, t.scanned, t.gets, t.fired, t.calls, t.queries)
	}
	fmt.Fprintf(w, "  (due: the team's pending alarms due by the window's end; index: entries the by_alarm queries read; records: records read\n")
	fmt.Fprintf(w, "  before firing; one query per table, whatever the hour: the index holds pending alarms only)\n")
	fmt.Fprintf(w, "\nDelay, scheduled instant -> delivery recorded, %d due soons over %s, each written %s ahead, a tick every %s\n",
		r.o.due, r.o.spread, r.o.lead, app.TimerPeriod)
	fmt.Fprintf(w, "  %-52s %10s %10s %6s\n", "", "p50", "p99", "n")
	fmt.Fprintf(w, "  %-52s %10s %10s %6d\n", "timer -> stream -> dispatcher", secs(r.delay.p50), secs(r.delay.p99), r.delay.n)
	fmt.Fprintf(w, "  (not recorded: %d; signed POSTs received: %d; bad signatures: %d)\n", r.missing, r.arrived, r.bad)
	fmt.Fprintf(w, "\nTimer budgets\n")
	reads := true
	for _, t := range r.ticks {
		reads = reads && t.scanned == t.expected
	}
	fmt.Fprintf(w, "  %-4s a tick reads only the alarms due in its window (index entries read = alarms due, every tick)\n", verdict(reads))
	for _, t := range r.ticks {
		if t.expected == 0 {
			fmt.Fprintf(w, "  %-4s nothing due, at most %d DynamoDB calls: %d (%s)\n", verdict(t.calls <= timerIdleBudget && t.fired == 0), timerIdleBudget, t.calls, t.name)
		}
	}
	fmt.Fprintf(w, "  %-4s p99 delay <= %s: %s (%d of %d recorded)\n", verdict(r.missing == 0 && r.delay.p99 <= timerDelayBudget),
		timerDelayBudget, secs(r.delay.p99), r.delay.n, r.o.due)
	fmt.Fprintf(w, "  (timer bench took %s)\n", r.elapsed.Round(time.Second))
}

// secs formats a delay of seconds to the tenth.
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
