package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// sustainedOptions configures the sustained load (-sustained-only).
type sustainedOptions struct {
	clients     int           // closed-loop clients
	duration    time.Duration // the steady load
	burst       time.Duration // the burst at twice the steady rate, and the recovery after it
	description int           // characters of each created vehicle's description
	drain       int           // the backlog of changes drained to the 50 ms receiver
	faults      string        // a fault injector's spec between the stack and its engines ("" none)
}

// The burst's requests in flight at most (the rest are dropped and counted), and the API's request
// deadline.
const (
	sustainedInFlight = 256
	sustainedDeadline = 8 * time.Second
)

// sustainedCall is one request of the load (status 0: no answer).
type sustainedCall struct {
	start  time.Time
	took   time.Duration
	create bool
	status int
}

// sustainedMinute is one minute of the load, with the stack's AWS calls and the team's vehicles.
type sustainedMinute struct {
	phase                 string
	creates, updates      int
	p50, p99              time.Duration
	fivexx, other, failed int
	seconds               float64
	vehicles              int
}

// createsPerSecond is the minute's rate of creates.
func (m sustainedMinute) createsPerSecond() float64 { return float64(m.creates) / m.seconds }

// writesPerSecond is the minute's rate of writes.
func (m sustainedMinute) writesPerSecond() float64 { return float64(m.creates+m.updates) / m.seconds }

// sustainedReport is what the sustained load measured.
type sustainedReport struct {
	o          sustainedOptions
	minutes    []sustainedMinute
	burstRate  float64 // the burst's offered writes per second
	dropped    int     // burst requests not sent because too many were in flight
	delivered  int     // events the steady receiver got of the load's changes
	badSigs    int
	drainRate  float64        // events per second drained to the 50 ms receiver
	drainBound int            // the 50 ms receiver's bound at the end of the drain
	drainFirst time.Duration  // from the stack's start to the drain's first event
	problems   map[string]int // the stack's logged warnings and errors by level, message and error
	probe      *indexProbe    // the lag of a filtered list during the steady load
	indexed    time.Duration  // from the stack's start to the indexer having followed the drain's backlog
}

// countProblems counts the stack's JSON log lines by level, message and error (cut to 160 bytes).
func countProblems(path string) map[string]int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		var e struct{ Level, Msg, Error string }
		if json.Unmarshal([]byte(line), &e) == nil {
			out[e.Level+" "+e.Msg+": "+e.Error[:min(len(e.Error), 160)]]++
		}
	}
	return out
}

// sustainedRun is one run of the sustained load: the stack (restartable, on the same engines and
// stream checkpoints), the load's client and teams, and the receivers.
type sustainedRun struct {
	o            sustainedOptions
	rep          *sustainedReport
	root         string
	engines      *localaws.Stack
	checkpoints  string
	logger       *slog.Logger
	s            *localstack.Stack
	stop         func()
	raw          *rawClient
	load         *sustainedLoad
	steady, slow *benchReceiver
	hooks        []webhook.Webhook
}

// runSustained runs the stack exactly as `make run` wires it and loads it: the steady load, a burst
// at twice its rate and the load again, minute by minute, its changes to a webhook of every event;
// then a backlog written with the pipeline stopped, drained to a 50 ms receiver when it restarts.
func runSustained(ctx context.Context, o sustainedOptions) (rep *sustainedReport, err error) {
	defer catch(&err)
	rep = &sustainedReport{o: o} // returned with what was measured when a step fails
	r := &sustainedRun{o: o, rep: rep, stop: func() {}}
	r.root = filepath.Dir(must(samtemplate.Find(must(os.Getwd()))))
	check(os.MkdirAll(filepath.Join(r.root, ".data"), 0o755))
	dataDir := must(os.MkdirTemp(filepath.Join(r.root, ".data"), "bench-sustained-"))
	defer os.RemoveAll(dataDir)
	r.steady, r.slow = newBenchReceiver(0, 0), newBenchReceiver(0, slow50Sleep)
	defer r.steady.srv.Close()
	defer r.slow.srv.Close()
	ca := filepath.Join(dataDir, "receivers.pem")
	check(writeCAs(ca, r.steady.srv.Certificate(), r.slow.srv.Certificate()))
	check(os.Setenv("WEBHOOK_CA_FILE", ca))
	progress("sustained: starting the local stack as `make run` does (data in %s)", dataDir)
	r.engines = must(localaws.Start(ctx, localaws.Options{Dir: r.root, DataDir: dataDir, LogFile: filepath.Join(dataDir, "engines.log")}))
	defer r.engines.Stop()
	if o.faults != "" {
		inj := must(faults.Wrap(r.engines, must(faults.Parse(o.faults))))
		defer inj.Close()
		progress("sustained: faults %s between the stack and its engines", o.faults)
	}
	localstack.LocalEnv(r.engines)
	check(r.engines.Setenv())
	// The stack's warnings and errors go to a file; the report counts them by message.
	logPath := filepath.Join(r.root, ".data", "bench-sustained.log")
	logFile := must(os.Create(logPath))
	defer logFile.Close()
	r.logger = slog.New(slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelWarn}))
	defer func() { r.rep.problems = countProblems(logPath) }()
	r.checkpoints = filepath.Join(dataDir, "stream-checkpoints.json")
	defer func() { r.stop() }()
	r.start(ctx)
	r.prepareLoad(ctx)
	r.steadyAndBurst(ctx)
	r.awaitEvents(ctx)
	r.drain(ctx)
	return rep, nil
}

// start starts the stack on the run's engines (stop stops it).
func (r *sustainedRun) start(ctx context.Context) {
	workers, cancel := context.WithCancel(ctx)
	s := must(localstack.Start(workers, localstack.Options{Tables: r.engines.Tables, APIAddr: "127.0.0.1:0", Dir: r.root,
		Checkpoints: r.checkpoints, Logger: r.logger}))
	r.s, r.stop = s, func() { _ = s.Shutdown(); cancel(); r.stop = func() {} }
}

// prepareLoad makes the load's teams, their rate limits lifted and a webhook of every event each,
// and the filtered list's probe on the first.
func (r *sustainedRun) prepareLoad(ctx context.Context) {
	o := r.o
	r.raw = newRawClient(r.s.AWS, r.s.Config.Tables)
	r.load = &sustainedLoad{url: r.s.APIURL, description: strings.Repeat("Carro revisado, único dono. ", o.description/28+1)[:o.description],
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sustainedInFlight}}}
	var teams []string
	for i := range sustainedTeams {
		creds := must(r.s.NewTeam(ctx, fmt.Sprintf("Sustained load %d", i+1), "bench@patio.local"))
		r.raw.liftRateLimits(ctx, creds.TeamID, int((o.duration+2*o.burst)/time.Minute)+10)
		r.hooks = append(r.hooks, subscribe(ctx, r.s.Store, creds.TeamID, r.steady, "*"))
		r.load.keys, teams = append(r.load.keys, creds.Key), append(teams, creds.TeamID)
	}
	r.load.ids = make([][]string, len(r.load.keys))
	r.rep.probe = &indexProbe{url: r.s.APIURL, key: r.load.keys[0], teamID: teams[0], client: r.load.client, raw: r.raw}
}

// minute sums the load's minute that started at from into the report.
func (r *sustainedRun) minute(phase string, from time.Time) {
	m := r.load.minute(phase, from, time.Now())
	m.vehicles = int(r.load.created.Load())
	r.rep.minutes = append(r.rep.minutes, m)
	progress("sustained: %s minute %d: %.1f creates/s, %.1f writes/s, p50 %s, p99 %s, %d 5xx, %d other, %d unanswered, %d vehicles",
		phase, len(r.rep.minutes), m.createsPerSecond(), m.writesPerSecond(), m.p50.Round(time.Millisecond), m.p99.Round(time.Millisecond),
		m.fivexx, m.other, m.failed, m.vehicles)
}

// closedLoops starts the load's clients, each one request after the other, until the returned stop.
func (r *sustainedRun) closedLoops(ctx context.Context, seed int) (stop func()) {
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range r.o.clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(seed+i), 29))
			for loadCtx.Err() == nil {
				r.load.one(loadCtx, rng, i%len(r.load.keys))
			}
		})
	}
	return func() { stopLoad(); wg.Wait() }
}

// steadyAndBurst runs the steady load minute by minute with the probe beside it, then a burst of
// arrivals at twice the last steady minute's rate whether or not earlier requests have been
// answered, then the closed-loop load again.
func (r *sustainedRun) steadyAndBurst(ctx context.Context) {
	progress("sustained: %d clients creating and updating vehicles for %s", r.o.clients, r.o.duration)
	stopLoad := r.closedLoops(ctx, 0)
	probeCtx, stopProbe := context.WithCancel(ctx)
	probed := make(chan struct{})
	go func() { r.rep.probe.run(probeCtx); close(probed) }()
	end := time.Now().Add(r.o.duration)
	for from := time.Now(); from.Before(end) && ctx.Err() == nil; from = time.Now() {
		sleepCtx(ctx, min(time.Minute, time.Until(end)))
		r.minute("steady", from)
	}
	stopProbe()
	<-probed
	stopLoad()
	r.rep.burstRate = 2 * r.rep.minutes[len(r.rep.minutes)-1].writesPerSecond()
	progress("sustained: a burst of %.0f writes/s for %s", r.rep.burstRate, r.o.burst)
	from := time.Now()
	r.rep.dropped = r.load.openLoop(ctx, r.rep.burstRate, r.o.burst)
	r.minute("burst", from)
	stopLoad, from = r.closedLoops(ctx, 100), time.Now()
	sleepCtx(ctx, r.o.burst)
	stopLoad()
	r.minute("after", from)
	check(ctx.Err())
}

// awaitEvents waits until every change of the load reached the steady receiver (5 minutes at most).
func (r *sustainedRun) awaitEvents(ctx context.Context) {
	want := int(r.load.created.Load() + r.load.updated.Load())
	progress("sustained: waiting for the %d changes' events", want)
	delivered := func() int {
		n := 0
		for _, h := range r.hooks {
			n += r.steady.distinctEvents(h.ID)
		}
		return n
	}
	waitFor(ctx, 5*time.Minute, 100*time.Millisecond, func() bool { return delivered() >= want })
	r.rep.delivered = delivered()
	r.steady.mu.Lock()
	r.rep.badSigs = r.steady.bad
	r.steady.mu.Unlock()
}

// drain writes a backlog while the pipeline is stopped and times its drain to the 50 ms receiver,
// and the indexer's, once the stack starts again.
func (r *sustainedRun) drain(ctx context.Context) {
	r.stop()
	team := must(r.s.NewTeam(ctx, "Sustained load, 50 ms receiver", "bench@patio.local"))
	hook := subscribe(ctx, r.s.Store, team.TeamID, r.slow, webhook.VehicleCreated)
	progress("sustained: writing a backlog of %d changes with the pipeline stopped", r.o.drain)
	vehicles := patio.NewVehicles(r.s.Store.Vehicles())
	must(writeVehicles(ctx, vehicles, team.TeamID, r.o.drain, 16, 0))
	// The backlog's last change, stamped after every other: the indexer has followed the backlog
	// when its stream mark holds a write at or after lastWrite.
	lastWrite := time.Now()
	must(writeVehicles(ctx, vehicles, team.TeamID, 1, 1, 0))
	began := time.Now()
	r.start(ctx)
	if indexedAt, ok := r.raw.followedSince(ctx, team.TeamID, lastWrite, 5*time.Minute); ok {
		r.rep.indexed = indexedAt.Sub(began)
	}
	waitFor(ctx, 5*time.Minute, 100*time.Millisecond, func() bool { return len(r.slow.arrivals(hook.ID)) >= r.o.drain })
	arrived := r.slow.arrivals(hook.ID)
	var first, last time.Time
	for _, at := range arrived {
		if at.After(last) {
			last = at
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	r.rep.drainFirst = first.Sub(began)
	if len(arrived) < r.o.drain {
		check(fmt.Errorf("sustained: %d of %d backlog events reached the 50 ms receiver in 5 minutes", len(arrived), r.o.drain))
	}
	r.rep.drainRate = float64(r.o.drain) / last.Sub(began).Seconds()
	r.rep.drainBound = must(webhookdb.New(r.s.Store.DB()).Gate(ctx, team.TeamID, hook.ID)).Bound
}

// subscribe stores a webhook of the team, subscribed to event, to r.
func subscribe(ctx context.Context, store *dynamostore.Store, teamID string, r *benchReceiver, event string) webhook.Webhook {
	hook := must(webhook.New(teamID, r.srv.URL+"/in", []string{event}, time.Now().Add(-time.Minute)))
	r.mu.Lock()
	r.secrets[hook.ID] = hook.Secret
	r.mu.Unlock()
	check(webhookdb.New(store.DB()).CreateWebhook(ctx, hook))
	return hook
}

// writeCAs writes the receivers' certificates as one PEM file, the deliverer's extra roots.
func writeCAs(path string, certs ...*x509.Certificate) error {
	var b bytes.Buffer
	for _, c := range certs {
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// waitFor polls cond every poll until it holds (true), ctx ends or limit passes.
func waitFor(ctx context.Context, limit, poll time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); !cond(); sleepCtx(ctx, poll) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
	}
	return true
}

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// distinctEvents counts the distinct event ids the receiver answered 2xx for a webhook.
func (r *benchReceiver) distinctEvents(webhookID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events[webhookID])
}

// sustainedLoad is the load's HTTP client and what it recorded.
type sustainedLoad struct {
	url, description string
	keys             []string // a key of each team of the load
	client           *http.Client
	created, updated atomic.Int64
	mu               sync.Mutex
	calls            []sustainedCall
	ids              [][]string // vehicles created, to update, by team
}

// sustainedTeams is how many teams the load writes to, its clients spread over them.
const sustainedTeams = 3

// openLoop starts requests at rate per second for d, whatever is still in flight, and waits for them.
func (l *sustainedLoad) openLoop(ctx context.Context, rate float64, d time.Duration) (dropped int) {
	slots := make(chan struct{}, sustainedInFlight)
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	end := time.After(d)
	var wg sync.WaitGroup
	defer wg.Wait()
	rng := rand.New(rand.NewPCG(7, 29))
	for {
		select {
		case <-ctx.Done():
			return dropped
		case <-end:
			return dropped
		case <-tick.C:
			select {
			case slots <- struct{}{}:
				r := rand.New(rand.NewPCG(rng.Uint64(), 29))
				wg.Go(func() {
					defer func() { <-slots }()
					l.one(ctx, r, r.IntN(len(l.keys)))
				})
			default:
				dropped++
			}
		}
	}
}

// one makes one request in a team, a create or (half the time) an update of a vehicle created
// before.
func (l *sustainedLoad) one(ctx context.Context, rng *rand.Rand, team int) {
	l.mu.Lock()
	var id string
	if ids := l.ids[team]; len(ids) > 0 && rng.IntN(2) == 0 {
		id = ids[rng.IntN(len(ids))]
	}
	l.mu.Unlock()
	method, path, body := http.MethodPut, "/api/v1/vehicles/"+id,
		fmt.Sprintf(`{"price":%d.%02d,"mileage_km":%d}`, 50_000+rng.IntN(200_000), rng.IntN(100), rng.IntN(200_000))
	if id == "" {
		n := rng.Int64N(1_000_000_000)
		method, path = http.MethodPost, "/api/v1/vehicles"
		body = fmt.Sprintf(`{"brand":"Toyota","model":"Corolla","version":"XEi 2.0","model_year":2024,"manufacture_year":2024,"price":%d.%02d,"description":%q}`,
			50_000+n%200_000, n%100, l.description)
	}
	c := sustainedCall{start: time.Now(), create: id == ""}
	status, _, data, err := fetch(ctx, l.client, method, l.url+path, []byte(body), authorized(l.keys[team], nil), 0, true)
	c.took = time.Since(c.start)
	if err != nil && ctx.Err() != nil {
		return // the phase ended: not the stack's answer
	}
	var out struct{ Data struct{ ID string } }
	switch c.status = status; {
	case c.create && status == http.StatusCreated:
		if json.Unmarshal(data, &out) == nil {
			l.mu.Lock()
			l.ids[team] = append(l.ids[team], out.Data.ID)
			l.mu.Unlock()
		}
		l.created.Add(1)
	case !c.create && status == http.StatusOK:
		l.updated.Add(1)
	}
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
}

// minute sums the calls that started in [from, to).
func (l *sustainedLoad) minute(phase string, from, to time.Time) sustainedMinute {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := sustainedMinute{phase: phase, seconds: to.Sub(from).Seconds()}
	var lat []time.Duration
	for _, c := range l.calls {
		if c.start.Before(from) || !c.start.Before(to) {
			continue
		}
		switch {
		case c.status == 0:
			m.failed++
		case c.status >= 500:
			m.fivexx++
		case c.status >= 300:
			m.other++
		case c.create:
			m.creates++
			lat = append(lat, c.took)
		default:
			m.updates++
			lat = append(lat, c.took)
		}
	}
	m.p50, m.p99 = percentiles(lat)
	return m
}

// printSustained prints the sustained load's minutes and budgets.
func printSustained(w io.Writer, r *sustainedReport) {
	fmt.Fprintf(w, "\nSustained load on the stack as `make run` wires it (DynamoDB Local on disk, moto, the API, pollers, dispatcher, indexer, deliverer, sweeper, timer)\n")
	fmt.Fprintf(w, "%d clients, each creating (a %d-character description) or updating vehicles, one request after the other; a webhook of every event to an HTTPS receiver;\n",
		r.o.clients, r.o.description)
	fmt.Fprintf(w, "a burst of %.1f writes/s offered for %s (twice the last steady minute; %d not sent, %d already in flight); %d events at the receiver, %d bad signatures\n\n",
		r.burstRate, r.o.burst, r.dropped, sustainedInFlight, r.delivered, r.badSigs)
	tw := table(w, "min\tphase\tcreates/s\twrites/s\tp50\tp99\t5xx\tother\tlost\tvehicles\t")
	var steady []sustainedMinute
	var after *sustainedMinute
	fivexx, burst5xx, worstP99, apiRate := 0, 0, time.Duration(0), 0.0
	for i, m := range r.minutes {
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.1f\t%s\t%s\t%d\t%d\t%d\t%d\t\n", i+1, m.phase, m.createsPerSecond(), m.writesPerSecond(),
			m.p50.Round(time.Millisecond), m.p99.Round(time.Millisecond), m.fivexx, m.other, m.failed, m.vehicles)
		switch m.phase {
		case "burst":
			burst5xx += m.fivexx
			continue
		case "steady":
			steady, apiRate = append(steady, m), max(apiRate, m.writesPerSecond())
		case "after":
			after = &r.minutes[i]
		}
		fivexx += m.fivexx
		worstP99 = max(worstP99, m.p99)
	}
	_ = tw.Flush()
	if len(r.problems) > 0 {
		fmt.Fprintf(w, "\nThe stack's warnings and errors (.data/bench-sustained.log), by message:\n")
		for _, k := range slices.Sorted(maps.Keys(r.problems)) {
			fmt.Fprintf(w, "  %6d  %s\n", r.problems[k], k)
		}
	}
	fmt.Fprintf(w, "\nBudgets (sustained load)\n")
	budget := func(what string, ok bool, format string, args ...any) {
		fmt.Fprintf(w, "  %s  %-72s %s\n", verdict(ok), what, fmt.Sprintf(format, args...))
	}
	if len(steady) > 0 {
		first, last := steady[0], steady[len(steady)-1]
		budget("last steady minute's creates/s >= 0.8x the first's", last.createsPerSecond() >= 0.8*first.createsPerSecond(),
			"%.1f vs %.1f (x%.2f)", last.createsPerSecond(), first.createsPerSecond(), last.createsPerSecond()/first.createsPerSecond())
		if after != nil {
			budget("the minute after the burst >= 0.8x the last steady minute (writes/s)", after.writesPerSecond() >= 0.8*last.writesPerSecond(),
				"%.1f vs %.1f (x%.2f)", after.writesPerSecond(), last.writesPerSecond(), after.writesPerSecond()/last.writesPerSecond())
		}
	}
	budget("p99 below the request deadline (8 s), every minute but the burst's", worstP99 < sustainedDeadline, "worst %s", worstP99.Round(time.Millisecond))
	budget("no 5xx, every minute but the burst's", fivexx == 0, "%d (the burst's: %d)", fivexx, burst5xx)
	budget("a 50 ms receiver drains >= 320 events/s (4x a fixed bound of 4)", r.drainRate >= 320, "%.0f/s of %d from the stack's start (the first after %s), bound %d at the end",
		r.drainRate, r.o.drain, r.drainFirst.Round(time.Millisecond), r.drainBound)
	if p := r.probe; p != nil {
		l50, l99 := percentiles(p.listed)
		f50, f99 := percentiles(p.followed)
		budget(fmt.Sprintf("a filtered list lists a write within p99 <= 3 s at the load's rate (%d teams)", sustainedTeams),
			len(p.listed) > 0 && l99 <= 3*time.Second && p.missed == 0, "%s (p50 %s; %d probes, one every %s, %d missed; the indexer followed them: p50 %s, p99 %s)",
			ms(l99), ms(l50), len(p.listed), probeEvery, p.missed, ms(f50), ms(f99))
	}
	indexRate := 0.0
	if r.indexed > 0 {
		indexRate = float64(r.o.drain+1) / r.indexed.Seconds()
	}
	budget("the indexer follows >= 2x the API's sustained writes/s", apiRate > 0 && indexRate >= 2*apiRate,
		"%.0f/s vs %.1f/s (x%.2f; the drain's backlog of %d followed %s after the stack started)", indexRate, apiRate, indexRate/max(apiRate, 1e-9),
		r.o.drain+1, r.indexed.Round(time.Millisecond))
}
