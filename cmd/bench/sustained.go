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

// runSustained runs the stack exactly as `make run` wires it and loads it: the steady load, a burst
// at twice its rate and the load again, minute by minute, its changes to a webhook of every event;
// then a backlog written with the pipeline stopped, drained to a 50 ms receiver when it restarts.
func runSustained(ctx context.Context, o sustainedOptions) (rep *sustainedReport, err error) {
	defer catch(&err)
	rep = &sustainedReport{o: o}
	root := filepath.Dir(must(samtemplate.Find(must(os.Getwd()))))
	check(os.MkdirAll(filepath.Join(root, ".data"), 0o755))
	dataDir := must(os.MkdirTemp(filepath.Join(root, ".data"), "bench-sustained-"))
	defer os.RemoveAll(dataDir)

	steady, slow := newBenchReceiver(0, 0), newBenchReceiver(0, slow50Sleep)
	defer steady.srv.Close()
	defer slow.srv.Close()
	ca := filepath.Join(dataDir, "receivers.pem")
	check(writeCAs(ca, steady.srv.Certificate(), slow.srv.Certificate()))
	check(os.Setenv("WEBHOOK_CA_FILE", ca))

	progress("sustained: starting the local stack as `make run` does (data in %s)", dataDir)
	st := must(localaws.Start(ctx, localaws.Options{Dir: root, DataDir: dataDir, LogFile: filepath.Join(dataDir, "engines.log")}))
	defer st.Stop()
	if o.faults != "" {
		inj := must(faults.Wrap(st, must(faults.Parse(o.faults))))
		defer inj.Close()
		progress("sustained: faults %s between the stack and its engines", o.faults)
	}
	localstack.LocalEnv(st)
	check(st.Setenv())
	// The stack's warnings and errors go to a file; the report counts them by message.
	logPath := filepath.Join(root, ".data", "bench-sustained.log")
	logFile := must(os.Create(logPath))
	defer logFile.Close()
	logger := slog.New(slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelWarn}))
	defer func() { rep.problems = countProblems(logPath) }()
	checkpoints := filepath.Join(dataDir, "stream-checkpoints.json")
	var s *localstack.Stack
	stop := func() {}
	defer func() { stop() }()
	start := func() {
		workers, cancel := context.WithCancel(ctx)
		s = must(localstack.Start(workers, localstack.Options{Tables: st.Tables, APIAddr: "127.0.0.1:0", Dir: root,
			Checkpoints: checkpoints, Logger: logger}))
		stop = func() { _ = s.Shutdown(); cancel(); stop = func() {} }
	}
	start()
	raw := newRawClient(s.AWS, s.Config.Tables)
	l := &sustainedLoad{url: s.APIURL, description: strings.Repeat("Carro revisado, único dono. ", o.description/28+1)[:o.description],
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sustainedInFlight}}}
	var hooks []webhook.Webhook
	var teams []string
	for i := range sustainedTeams {
		creds := must(s.NewTeam(ctx, fmt.Sprintf("Sustained load %d", i+1), "bench@patio.local"))
		raw.liftRateLimits(ctx, creds.TeamID, int((o.duration+2*o.burst)/time.Minute)+10)
		hooks = append(hooks, subscribe(ctx, s.Store, creds.TeamID, steady, "*"))
		l.keys, teams = append(l.keys, creds.Key), append(teams, creds.TeamID)
	}
	l.ids = make([][]string, len(l.keys))
	rep.probe = &indexProbe{url: s.APIURL, key: l.keys[0], teamID: teams[0], client: l.client, raw: raw}
	minute := func(phase string, from time.Time) {
		m := l.minute(phase, from, time.Now())
		m.vehicles = int(l.created.Load())
		rep.minutes = append(rep.minutes, m)
		progress("sustained: %s minute %d: %.1f creates/s, %.1f writes/s, p50 %s, p99 %s, %d 5xx, %d other, %d unanswered, %d vehicles",
			phase, len(rep.minutes), m.createsPerSecond(), m.writesPerSecond(), m.p50.Round(time.Millisecond), m.p99.Round(time.Millisecond),
			m.fivexx, m.other, m.failed, m.vehicles)
	}
	closedLoops := func(seed int) func() {
		loadCtx, stopLoad := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for i := range o.clients {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(seed+i), 29))
				for loadCtx.Err() == nil {
					l.one(loadCtx, rng, i%len(l.keys))
				}
			})
		}
		return func() { stopLoad(); wg.Wait() }
	}

	// The steady load, minute by minute.
	progress("sustained: %d clients creating and updating vehicles for %s", o.clients, o.duration)
	stopLoad := closedLoops(0)
	probeCtx, stopProbe := context.WithCancel(ctx)
	probed := make(chan struct{})
	go func() { rep.probe.run(probeCtx); close(probed) }()
	end := time.Now().Add(o.duration)
	for from := time.Now(); from.Before(end) && ctx.Err() == nil; from = time.Now() {
		sleepCtx(ctx, min(time.Minute, time.Until(end)))
		minute("steady", from)
	}
	stopProbe()
	<-probed
	stopLoad()
	// The burst: arrivals at twice the last steady minute's rate, whether or not earlier requests
	// have been answered; then the closed-loop load again.
	rep.burstRate = 2 * rep.minutes[len(rep.minutes)-1].writesPerSecond()
	progress("sustained: a burst of %.0f writes/s for %s", rep.burstRate, o.burst)
	from := time.Now()
	rep.dropped = l.openLoop(ctx, rep.burstRate, o.burst)
	minute("burst", from)
	stopLoad, from = closedLoops(100), time.Now()
	sleepCtx(ctx, o.burst)
	stopLoad()
	minute("after", from)
	check(ctx.Err())

	// Every change of the load reaches the steady receiver.
	want := int(l.created.Load() + l.updated.Load())
	progress("sustained: waiting for the %d changes' events", want)
	delivered := func() int {
		n := 0
		for _, h := range hooks {
			n += steady.distinctEvents(h.ID)
		}
		return n
	}
	waitFor(ctx, 5*time.Minute, 100*time.Millisecond, func() bool { return delivered() >= want })
	rep.delivered = delivered()
	steady.mu.Lock()
	rep.badSigs = steady.bad
	steady.mu.Unlock()

	// The drain: a backlog written while the pipeline is stopped, drained when it starts again.
	stop()
	drainTeam := must(s.NewTeam(ctx, "Sustained load, 50 ms receiver", "bench@patio.local"))
	slowHook := subscribe(ctx, s.Store, drainTeam.TeamID, slow, webhook.VehicleCreated)
	progress("sustained: writing a backlog of %d changes with the pipeline stopped", o.drain)
	must(writeVehicles(ctx, patio.NewVehicles(s.Store.Vehicles()), drainTeam.TeamID, o.drain, 16, 0))
	// The backlog's last change, stamped after every other: the indexer has followed the backlog
	// when its stream mark holds a write at or after lastWrite.
	lastWrite := time.Now()
	must(writeVehicles(ctx, patio.NewVehicles(s.Store.Vehicles()), drainTeam.TeamID, 1, 1, 0))
	began := time.Now()
	start()
	indexedAt, ok := raw.followedSince(ctx, drainTeam.TeamID, lastWrite, 5*time.Minute)
	if ok {
		rep.indexed = indexedAt.Sub(began)
	}
	waitFor(ctx, 5*time.Minute, 100*time.Millisecond, func() bool { return len(slow.arrivals(slowHook.ID)) >= o.drain })
	var first, last time.Time
	for _, at := range slow.arrivals(slowHook.ID) {
		if at.After(last) {
			last = at
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	rep.drainFirst = first.Sub(began)
	if n := len(slow.arrivals(slowHook.ID)); n < o.drain {
		return rep, fmt.Errorf("sustained: %d of %d backlog events reached the 50 ms receiver in 5 minutes", n, o.drain)
	}
	rep.drainRate = float64(o.drain) / last.Sub(began).Seconds()
	rep.drainBound = must(webhookdb.New(s.Store.DB()).Gate(ctx, drainTeam.TeamID, slowHook.ID)).Bound
	return rep, nil
}

// subscribe stores a webhook of the team, subscribed to event, to r.
func subscribe(ctx context.Context, store *dynamostore.Store, teamID string, r *benchReceiver, event string) webhook.Webhook {
	hook := must(webhook.New(teamID, r.srv.URL+"/in", []string{event}, time.Now().Add(-time.Minute)))
	r.secret = hook.Secret
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
