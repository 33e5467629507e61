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
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The timer budgets (issue 12): calls of a tick with nothing due, and the p99 delay.
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

// tickRow is what one measured tick did beside the alarms due in its window.
type tickRow struct {
	name, window                                   string
	expected, calls, queries, scanned, gets, fired int
}

// timerReport is what the timer bench measured.
type timerReport struct {
	o                     timerOptions
	elapsed               time.Duration
	ticks                 []tickRow
	delay                 result
	missing, arrived, bad int
}

// runTimerBench measures the timer on tables of its own: single ticks, then the delays.
func runTimerBench(ctx context.Context, o timerOptions) *timerReport {
	started := time.Now()
	b := setupWebhookBench(ctx, webhookOptions{})
	defer b.recv.srv.Close()
	rep := &timerReport{o: o}
	// The ticks first: their activities fall due from the next UTC midnight + 1 h on, so the
	// delays part, whose timer runs on the real clock, fires none of them.
	b.timerTicks(ctx, rep)
	b.timerDelays(ctx, rep)
	rep.elapsed = time.Since(started)
	return rep
}

// timerDelays writes o.due activities falling due over o.spread, each o.lead ahead, with the
// pipeline and the timer running, and measures scheduled instant → delivery recorded.
func (b *whBench) timerDelays(ctx context.Context, rep *timerReport) {
	o := rep.o
	recv := newBenchReceiver(0, 0)
	defer recv.srv.Close()
	team, hook := b.scenario(ctx, "Timer bench", recv, webhook.ActivityDueSoon)
	timer := must(app.NewTimer(b.cfg, b.conf, app.TimerPeriod))
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	waitPipe := b.startPipeline(runCtx, b.conf, "ActivitiesTable")
	var wg sync.WaitGroup
	wg.Go(func() { localaws.RunTimer(runCtx, app.TimerPeriod, timer.Tick, b.logger) })
	defer func() { stop(); wg.Wait(); waitPipe() }()

	progress("timer: %d due soons falling due over %s, each written %s ahead, ticks every %s", o.due, o.spread, o.lead, app.TimerPeriod)
	activities := patio.NewActivities(b.store.Activities())
	first := time.Now().Add(o.lead + 5*time.Second)
	scheduled := map[string]time.Time{}
	for i := range o.due {
		at := first.Add(time.Duration(i) * o.spread / time.Duration(o.due))
		sleepCtx(ctx, time.Until(at.Add(-o.lead)))
		check(ctx.Err())
		a := must(activities.Create(ctx, team, patio.ActivityInput{Type: patio.Some("call"),
			Title: patio.Some(fmt.Sprintf("Retorno %d", i)), DueAt: patio.Some(patio.NewTimestamp(at.Add(24 * time.Hour)))}))
		scheduled[a.ID] = a.DueSoonAt()
	}
	recorded := map[string]time.Time{}
	seen := map[string]bool{} // deliveries whose record was read
	for deadline := first.Add(o.spread + 3*app.TimerPeriod); len(recorded) < o.due && time.Now().Before(deadline); {
		sleepCtx(ctx, 2*time.Second)
		check(ctx.Err())
		for _, d := range must(webhookdb.New(b.store.DB()).Deliveries(ctx, hook.ID, "")) {
			if seen[d.ID] {
				continue
			}
			// The webhook's delivery list carries no payload: the record has it.
			d = must(webhookdb.New(b.store.DB()).Delivery(ctx, d.ID))
			seen[d.ID] = true
			var ev struct {
				Data struct{ Object struct{ ID string } }
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
}

// timerTicks seeds o.activities activities falling due over 30 days from the next 01:00 UTC, and
// measures single ticks at chosen instants (00:30 UTC: a window over two days).
func (b *whBench) timerTicks(ctx context.Context, rep *timerReport) {
	o := rep.o
	team := storeTeam(ctx, b.store, "Timer ticks")
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	progress("timer: seeding %d activities of one team whose due soons fall due over 30 days from %s", o.activities, midnight.Add(time.Hour).Format(time.RFC3339))
	// The first due_at at midnight + 25 h: due soons from midnight + 1 h.
	start, step := midnight.Add(25*time.Hour), 30*24*time.Hour/time.Duration(o.activities)
	seeded := history(o.activities, time.Now(), 0, func(i int, id string, at time.Time) (patio.Activity, error) {
		w, err := patio.NewActivity(team.ID, id, at, patio.ActivityInput{Type: patio.Some("task"),
			Title: patio.Some(fmt.Sprintf("Tarefa %d", i)), DueAt: patio.Some(patio.NewTimestamp(start.Add(time.Duration(i) * step)))})
		return w.Record, err
	})
	seedAll(ctx, b.store, seeded)
	rec, cfg := newRecorder(b.cfg)
	timer := must(app.NewTimer(cfg, b.conf, app.TimerPeriod))
	for _, tk := range []struct {
		name string
		at   time.Time // zero: the real clock
	}{
		{"nothing due, now", time.Time{}},
		{"nothing due, 00:30 UTC", midnight.Add(30 * time.Minute)},
		{"the first due soons due, 01:10 UTC", midnight.Add(70 * time.Minute)},
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
		calls := must(rec.record(func() (err error) {
			row.fired, err = timer.Tick(ctx)
			return err
		}))
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
}

// printTimerReport prints the timer bench's ticks and budgets.
func printTimerReport(w io.Writer, r *timerReport) {
	fmt.Fprintf(w, "\nTimer of activities and financial records (production lookahead %s): one tick at chosen instants, %d activities of one\n", app.TimerPeriod, r.o.activities)
	fmt.Fprintf(w, "team falling due over 30 days from the next 01:00 UTC; due: the team's pending alarms due by the window's\n")
	fmt.Fprintf(w, "end; index: entries the by_alarm queries read; records: records read before firing\n\n")
	tw := table(w, "tick\twindow (UTC)\tdue\tindex\trecords\tfired\tcalls\tqueries\t")
	reads := true
	for _, t := range r.ticks {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.name, t.window, t.expected, t.scanned, t.gets, t.fired, t.calls, t.queries)
		reads = reads && t.scanned == t.expected
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nTimer budgets\n")
	fmt.Fprintf(w, "  %-4s a tick reads only the alarms due in its window (index entries read = alarms due, every tick)\n", verdict(reads))
	for _, t := range r.ticks {
		if t.expected == 0 {
			fmt.Fprintf(w, "  %-4s nothing due, at most %d DynamoDB calls: %d (%s)\n", verdict(t.calls <= timerIdleBudget && t.fired == 0), timerIdleBudget, t.calls, t.name)
		}
	}
	fmt.Fprintf(w, "  %-4s p99 delay <= %s: %s (p50 %s; %d of %d recorded, scheduled instant → delivery recorded, %d due soons over %s, each written %s ahead;\n",
		verdict(r.missing == 0 && r.delay.p99 <= timerDelayBudget), timerDelayBudget, secs(r.delay.p99), secs(r.delay.p50), r.delay.n, r.o.due,
		r.o.due, r.o.spread, r.o.lead)
	fmt.Fprintf(w, "        signed POSTs received: %d, bad signatures: %d)\n", r.arrived, r.bad)
	fmt.Fprintf(w, "  (timer bench took %s)\n", r.elapsed.Round(time.Second))
}
