package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// entry is one line of the history: one attempt of one request and its answer.
type entry struct {
	At       time.Time `json:"at"`   // when the answer (or the failure) came
	Sent     time.Time `json:"sent"` // when the attempt was sent
	Client   int       `json:"client"`
	Phase    string    `json:"phase"`
	Faulty   bool      `json:"faulty"` // sent while the phase's faults were on
	Op       string    `json:"op"`
	Method   string    `json:"method"`
	Path     string    `json:"path"`
	Key      string    `json:"key,omitempty"` // Idempotency-Key of a create; the marker its record carries
	Attempt  int       `json:"attempt"`
	Status   int       `json:"status"` // 0: no answer (the connection failed)
	Code     string    `json:"code,omitempty"`
	ID       string    `json:"id,omitempty"`
	Revision int       `json:"revision,omitempty"`
	Replayed bool      `json:"replayed,omitempty"`
	Counted  bool      `json:"counted,omitempty"` // the answer carried X-RateLimit-* and was not a 429: the request was let through
	Err      string    `json:"err,omitempty"`
}

// history records every attempt, in memory and as JSON lines in a file.
type history struct {
	mu      sync.Mutex
	entries []entry
	enc     *json.Encoder
	phase   string
	faulty  bool
}

func newHistory(w io.Writer) *history { return &history{enc: json.NewEncoder(w)} }

func (h *history) setPhase(name string, faulty bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.phase, h.faulty = name, faulty
}

func (h *history) current() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.phase, h.faulty
}

func (h *history) add(e entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, e)
	_ = h.enc.Encode(e)
}

func (h *history) all() []entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]entry(nil), h.entries...)
}

// api sends the run's requests, records each attempt, and retries as the README tells integrators:
// a 429, a 5xx or a failed connection is sent again, after Retry-After (or a short backoff), with
// the same Idempotency-Key, until it gets another answer or giveUp passes.
type api struct {
	base, key string
	hist      *history
	http      *http.Client
	giveUp    time.Time
}

// answer is the final answer of a request.
type answer struct {
	status   int
	id       string
	revision int
}

func (a *api) do(ctx context.Context, client int, op, method, path, key string, body any) answer {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		phase, faulty := a.hist.current()
		e := entry{Sent: time.Now(), Client: client, Phase: phase, Faulty: faulty, Op: op, Method: method, Path: path, Key: key, Attempt: attempt}
		wait := a.attempt(ctx, &e, raw)
		e.At = time.Now()
		a.hist.add(e)
		if wait == 0 || time.Now().After(a.giveUp) || ctx.Err() != nil {
			return answer{status: e.Status, id: e.ID, revision: e.Revision}
		}
		if wait < 0 {
			wait = backoff/2 + rand.N(backoff)
			backoff = min(2*backoff, 5*time.Second)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// attempt sends one attempt and fills e with its answer. It returns 0 when the answer is final,
// the Retry-After to wait when one was given, or -1 to back off.
func (a *api) attempt(ctx context.Context, e *entry, body []byte) time.Duration {
	req, err := http.NewRequestWithContext(ctx, e.Method, a.base+e.Path, bytes.NewReader(body))
	if err != nil {
		e.Err = err.Error()
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.Key != "" {
		req.Header.Set("Idempotency-Key", e.Key)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		e.Err = err.Error()
		return -1
	}
	defer resp.Body.Close()
	e.Status = resp.StatusCode
	e.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	e.Counted = resp.Header.Get("X-RateLimit-Limit") != "" && resp.StatusCode != http.StatusTooManyRequests
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(raw, &env) == nil {
		e.Code = env.Error.Code
		var rec struct {
			ID       string `json:"id"`
			Revision int    `json:"revision"`
		}
		if json.Unmarshal(env.Data, &rec) == nil {
			e.ID, e.Revision = rec.ID, rec.Revision
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(s)*time.Second + rand.N(500*time.Millisecond)
	}
	return -1
}

// worker is one of the run's clients: it registers vehicles and clients, opens deals on them,
// edits them and wins some deals, one request at a time.
type worker struct {
	n        int
	api      *api
	run      string // the run's tag, in every marker
	seq      int
	rnd      *rand.Rand
	vehicles []string // registered, not yet in a deal
	clients  []string
	deals    []string // open
	all      []string // every vehicle, for edits
}

func (w *worker) loop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.step(context.WithoutCancel(ctx))
	}
}

func (w *worker) step(ctx context.Context) {
	w.seq++
	key := fmt.Sprintf("chaos-%s-%d-%d", w.run, w.n, w.seq)
	switch r := w.rnd.Float64(); {
	case len(w.vehicles) < 2 || r < 0.25:
		a := w.api.do(ctx, w.n, "create vehicle", "POST", "/api/v1/vehicles", key, map[string]any{
			"brand": "Chaos", "model": "Test", "title": key, "price": 10000 + w.rnd.IntN(90000), "plate": w.plate()})
		if a.status == http.StatusCreated {
			w.vehicles, w.all = append(w.vehicles, a.id), append(w.all, a.id)
		}
	case len(w.clients) < 1 || r < 0.45:
		a := w.api.do(ctx, w.n, "create client", "POST", "/api/v1/clients", key, map[string]any{
			"type": "individual", "name": "Cliente Caos", "cpf": cpf(w.rnd), "notes": key})
		if a.status == http.StatusCreated {
			w.clients = append(w.clients, a.id)
		}
	case r < 0.6:
		v := w.vehicles[0]
		a := w.api.do(ctx, w.n, "create deal", "POST", "/api/v1/deals", key, map[string]any{
			"title": key, "client_id": w.clients[w.rnd.IntN(len(w.clients))], "vehicle_id": v})
		if a.status == http.StatusCreated {
			w.vehicles, w.deals = w.vehicles[1:], append(w.deals, a.id)
		}
	case r < 0.75 || len(w.deals) == 0:
		v := w.all[w.rnd.IntN(len(w.all))]
		w.api.do(ctx, w.n, "update vehicle", "PUT", "/api/v1/vehicles/"+v, "", map[string]any{"price": 10000 + w.rnd.IntN(90000)})
	case r < 0.85:
		c := w.clients[w.rnd.IntN(len(w.clients))]
		w.api.do(ctx, w.n, "update client", "PUT", "/api/v1/clients/"+c, "", map[string]any{"email": key + "@chaos.example"})
	default:
		d := w.deals[0]
		w.deals = w.deals[1:]
		w.api.do(ctx, w.n, "win deal", "PUT", "/api/v1/deals/"+d, "", map[string]any{"status": "ganho", "payment_method": "financiamento"})
	}
}

// plate is a Mercosul plate (LLL9L99) of this worker's run, unique within it: the first letter is
// the run's, the rest spell the worker and its step.
func (w *worker) plate() string {
	n := w.seq*16 + w.n
	l := func(i int) byte { return byte('A' + i%26) }
	d := func(i int) byte { return byte('0' + i%10) }
	return string([]byte{l(int(w.run[0])), l(n / 26000), l(n / 676000), d(n / 2600), l(n / 100), d(n / 10), d(n)})
}

// cpf is a random CPF with valid check digits.
func cpf(r *rand.Rand) string {
	d := make([]int, 11)
	for i := range 9 {
		d[i] = r.IntN(10)
	}
	for k := 9; k < 11; k++ {
		sum := 0
		for i := range k {
			sum += d[i] * (k + 1 - i)
		}
		d[k] = sum * 10 % 11 % 10
	}
	b := make([]byte, 11)
	for i, v := range d {
		b[i] = byte('0' + v)
	}
	return string(b)
}

// tag returns a short random tag for this run's markers.
func tag() string { return strconv.FormatInt(int64(os.Getpid())%1000+int64(rand.IntN(1000))*1000, 36) }
