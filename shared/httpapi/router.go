// Package httpapi is the HTTP adapter of the public API: one http.Handler serving /api/v1 in the
// JSON envelope openapi.yaml describes. The Lambda functions serve it to API Gateway through
// aws-lambda-go-api-proxy, and the local stack serves the very same handler over plain HTTP.
package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/httplog"
	"github.com/patio-dev/patio/shared/patio"
)

// MaxBodyBytes is the largest request body accepted (1 MiB); a larger one is 400.
const MaxBodyBytes = 1 << 20

// Service is one resource's use cases on typed inputs, as the domain provides them
// (patio.Vehicles, ...).
type Service[T, In, Q any] interface {
	Create(ctx context.Context, teamID string, in In) (T, error)
	CreateOnce(ctx context.Context, teamID string, in In, key patio.IdempotencyKey) (T, bool, error)
	Get(ctx context.Context, teamID, id string) (T, error)
	UpdateIf(ctx context.Context, teamID, id string, in In, pre patio.Precondition) (T, error)
	ArchiveIf(ctx context.Context, teamID, id string, pre patio.Precondition) (T, error)
	List(ctx context.Context, teamID string, q Q) (patio.Page[T], error)
}

// Options configures the handler. A nil service leaves its routes unserved (404), so each Lambda
// function serves only its own resource while the local stack serves them all.
type Options struct {
	Keys patio.KeyStore
	// Limiter counts requests against the team's plan; nil serves without limits.
	Limiter patio.RateCounter
	// Now is the clock of the rate limits; time.Now when nil.
	Now      func() time.Time
	Vehicles Service[patio.Vehicle, patio.VehicleInput, patio.VehicleQuery]
	Clients  Service[patio.Client, patio.ClientInput, patio.ClientQuery]
	Deals    Service[patio.Deal, patio.DealInput, patio.DealQuery]
	// Photos serves /vehicles/{id}/photos (photos.go) beside Vehicles; nil leaves it unserved.
	Photos PhotoService
	Logger *slog.Logger
	// Deadline bounds each request (DefaultDeadline when zero), and is shortened to end before the
	// caller's own deadline (a Lambda invocation's) when that comes sooner.
	Deadline time.Duration
	// TeamHint returns the team an edge in front of the API already authenticated the request's key
	// for, with the team's plan then (API Gateway's authorizer context: ID and Plan set), or the zero
	// Team. With the team, the key and its team are read in one round trip
	// (patio.AuthenticateHinted); with its plan too, a read is also counted and served in that same
	// round trip (see ServeHTTP). Nil means no edge.
	TeamHint func(*http.Request) patio.Team
}

// DefaultDeadline is a request's deadline: below the functions' 10 s timeout, so that a hung
// database still gets a 500 in the envelope rather than no answer.
const DefaultDeadline = 8 * time.Second

// deadlineMargin is kept between a request's deadline and its caller's, to answer in time.
const deadlineMargin = 500 * time.Millisecond

// resource is the five operations of one resource, bound to its service.
type resource struct {
	list, create, get, update, archive func(w http.ResponseWriter, r *http.Request, teamID, id string) error
}

type api struct {
	deadline  time.Duration
	keys      patio.KeyStore
	limiter   patio.RateCounter
	now       func() time.Time
	log       *slog.Logger
	resources map[string]resource
	photos    PhotoService
	teamHint  func(*http.Request) patio.Team
	// keyUses holds, per key hash, when this process last recorded the key's use: requests of one
	// key arriving together record it once, not each.
	keyUses sync.Map
}

// New returns the API handler.
func New(o Options) http.Handler {
	a := &api{keys: o.Keys, limiter: o.Limiter, log: o.Logger, deadline: o.Deadline, resources: map[string]resource{},
		teamHint: o.TeamHint, photos: o.Photos}
	if a.deadline <= 0 {
		a.deadline = DefaultDeadline
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.now = o.Now
	if a.now == nil {
		a.now = time.Now
	}
	if o.Vehicles != nil {
		a.resources["vehicles"] = bind(o.Vehicles, decodeVehicle, decodeVehicleQuery,
			func(v patio.Vehicle) int { return v.Revision })
	}
	if o.Clients != nil {
		a.resources["clients"] = bind(o.Clients, decodeClient, decodeClientQuery,
			func(c patio.Client) int { return c.Revision })
	}
	if o.Deals != nil {
		a.resources["deals"] = bind(o.Deals, decodeDeal, decodeDealQuery,
			func(d patio.Deal) int { return d.Revision })
	}
	return a
}

// input is a resource's typed request body: its members' own values can be validated apart from
// any stored record (patio.VehicleInput.Validate, ...).
type input interface {
	Validate(now time.Time) error
}

// bind adapts a service to the five HTTP operations, decoding bodies and query strings into its
// typed inputs with decode and query; revision reads a record's revision for its ETag.
func bind[T any, In input, Q any](svc Service[T, In, Q], decode func(body) (In, error),
	query func(url.Values) (Q, error), revision func(T) int) resource {
	read := func(r *http.Request) (In, body, error) {
		b, err := readBody(r)
		if err != nil {
			var zero In
			return zero, nil, err
		}
		in, err := decode(b)
		if err != nil {
			// Members of the wrong type were left out; list the others' problems beside them.
			err = merge(err, in.Validate(time.Now()))
		}
		return in, b, err
	}
	one := func(w http.ResponseWriter, code int, v T) {
		w.Header().Set("ETag", etag(revision(v)))
		writeData(w, code, v)
	}
	return resource{
		list: func(w http.ResponseWriter, r *http.Request, teamID, _ string) error {
			values, err := strictQuery(r)
			if err != nil {
				return err
			}
			q, err := query(values)
			if err != nil {
				return err
			}
			page, err := svc.List(r.Context(), teamID, q)
			if err != nil {
				return err
			}
			writeList(w, page, values)
			return nil
		},
		create: func(w http.ResponseWriter, r *http.Request, teamID, _ string) error {
			in, b, err := read(r)
			if err != nil {
				return err
			}
			key, once, err := idempotencyKey(r, b)
			if err != nil {
				return err
			}
			var v T
			replayed := false
			if once {
				v, replayed, err = svc.CreateOnce(r.Context(), teamID, in, key)
			} else {
				v, err = svc.Create(r.Context(), teamID, in)
			}
			if err != nil {
				return err
			}
			if replayed {
				w.Header().Set("Idempotent-Replayed", "true")
			}
			one(w, http.StatusCreated, v)
			return nil
		},
		get: func(w http.ResponseWriter, r *http.Request, teamID, id string) error {
			v, err := svc.Get(r.Context(), teamID, id)
			if err != nil {
				return err
			}
			match, err := noneMatch(r, revision(v))
			switch {
			case err != nil:
				return err
			case match:
				writeNotModified(w, revision(v))
			default:
				one(w, http.StatusOK, v)
			}
			return nil
		},
		update: func(w http.ResponseWriter, r *http.Request, teamID, id string) error {
			pre, err := ifMatch(r)
			if err != nil {
				return err
			}
			in, _, err := read(r)
			if err != nil {
				return err
			}
			v, err := svc.UpdateIf(r.Context(), teamID, id, in, pre)
			if err != nil {
				return err
			}
			one(w, http.StatusOK, v)
			return nil
		},
		archive: func(w http.ResponseWriter, r *http.Request, teamID, id string) error {
			pre, err := ifMatch(r)
			if err != nil {
				return err
			}
			v, err := svc.ArchiveIf(r.Context(), teamID, id, pre)
			if err != nil {
				return err
			}
			one(w, http.StatusOK, v)
			return nil
		},
	}
}

// merge returns the KindInvalid error listing the problems of both (either may be nil).
func merge(a, b error) error {
	var p patio.Problems
	for _, err := range []error{a, b} {
		if err != nil {
			p.AddError(patio.InBody, "", err)
		}
	}
	return p.Err()
}

type ctxKey int

const requestIDKey ctxKey = iota

// requestID returns the request id stored in ctx.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// ServeHTTP routes a request. Checks run in the order openapi.yaml states: unknown route (404,
// before authentication) → authentication (401) → rate limit (429) → scope (403) → the operation. A
// read is served while it is counted, and its answer held until the count allows it; when an edge
// hints the key's team and plan, it is also served while the key is read (serveHintedRead).
func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := ""
	if gw, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
		id = gw.RequestID
	}
	if id == "" {
		id = uuid.NewString()
	}
	ctx, cancel := a.withDeadline(r.Context())
	defer cancel()
	r = r.WithContext(context.WithValue(ctx, requestIDKey, id))
	w.Header().Set("X-Request-Id", id)
	sw := &httplog.StatusWriter{ResponseWriter: w}
	teamID, plan := "", ""
	defer a.finish(sw, r, id, start, &teamID, &plan)

	op, name, itemID, ok := a.route(r)
	if !ok {
		a.writeError(sw, r, patio.NotFoundf("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	var hint patio.Team
	if a.teamHint != nil {
		hint = a.teamHint(r)
	}
	if r.Method == http.MethodGet && a.limiter != nil && hint.ID != "" && hint.Plan.Valid() {
		p, done := a.serveHintedRead(sw, r, hint, op, name, itemID)
		if done {
			teamID, plan = p.Team.ID, string(p.Team.Plan)
			return
		}
	}
	p, err := patio.AuthenticateHinted(r.Context(), a.keys, r.Header.Get("Authorization"), hint.ID)
	if err != nil {
		a.writeError(sw, r, err)
		return
	}
	teamID, plan = p.Team.ID, string(p.Team.Plan)
	defer a.noteKeyUse(r, p)()
	a.serveCounted(sw, r, p, func(w http.ResponseWriter) {
		if err := a.serveAuthenticated(w, r, p, op, name, itemID); err != nil {
			a.writeError(w, r, err)
		}
	})
}

// finish ends a request: a panic answered as an internal error (when nothing was written yet),
// and the request's log line, whose plan and status also make the request metrics on Lambda
// (package emf).
func (a *api) finish(sw *httplog.StatusWriter, r *http.Request, id string, start time.Time, teamID, plan *string) {
	if p := recover(); p != nil {
		a.log.ErrorContext(r.Context(), "panic", slog.String("request_id", id), slog.Any("panic", p))
		if sw.Status == 0 {
			a.writeError(sw, r, patio.Internal(errors.New("panic")))
		}
	}
	a.log.InfoContext(r.Context(), "request", slog.String("request_id", id), slog.String("team_id", *teamID),
		slog.String("plan", *plan), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", sw.Status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
}

// serveCounted serves an authenticated request as its team's plan allows: a write once the
// request is counted, a read while it is counted (a read changes nothing: one round trip saved),
// its answer sent only if the count lets the request through.
func (a *api) serveCounted(sw *httplog.StatusWriter, r *http.Request, p patio.Principal, serve func(http.ResponseWriter)) {
	switch {
	case a.limiter == nil:
		serve(sw)
	case r.Method != http.MethodGet:
		st, err := patio.Throttle(r.Context(), a.limiter, p.Team, a.now())
		if a.answerThrottled(sw, r, st, err) {
			serve(sw)
		}
	default:
		var st patio.RateStatus
		var err error
		counted := make(chan struct{})
		go func() {
			defer close(counted)
			st, err = patio.Throttle(r.Context(), a.limiter, p.Team, a.now())
		}()
		var answer bufferedResponse
		serve(&answer)
		<-counted
		if a.answerThrottled(sw, r, st, err) {
			answer.sendTo(sw)
		}
	}
}

// noteKeyUse starts writing the key's last use beside the request, when this process is the one to
// write it (at most once a minute), and returns what waits for the write to end.
func (a *api) noteKeyUse(r *http.Request, p patio.Principal) (wait func()) {
	noter, ok := a.keys.(patio.KeyUseNoter)
	if !ok || !p.Key.UseIsStale(a.now()) || !a.claimKeyUse(p.Key.Hash) {
		return func() {}
	}
	var noted sync.WaitGroup
	noted.Go(func() {
		if err := noter.NoteKeyUse(r.Context(), p.Key.Hash, a.now()); err != nil {
			a.log.WarnContext(r.Context(), "note key use", slog.String("request_id", requestID(r.Context())),
				slog.String("key_id", p.Key.ID), slog.String("error", err.Error()))
		}
	})
	return noted.Wait
}

// serveHintedRead serves a read whose key an edge already authenticated for hint's team and plan,
// in one round trip: the key and its team are read, the request counted against the hinted plan
// and the operation run for the hinted team, all at once. The answer is held until the key is
// known to be valid and of that team. A key no longer valid answers 401 and its count is taken
// back (a refused key counts nothing); a plan changed since the edge's answer takes the count back
// and counts the request again on the team's current plan. A key of another team than the hinted
// one (done false) takes the count back and leaves the request to the common path, which serves
// it anew. p is the principal when the key is valid.
func (a *api) serveHintedRead(w http.ResponseWriter, r *http.Request, hint patio.Team,
	op func(http.ResponseWriter, *http.Request, string, string) error, name, itemID string) (p patio.Principal, done bool) {
	ctx := r.Context()
	now := a.now()
	var authErr, countErr error
	var st patio.RateStatus
	var wg sync.WaitGroup
	waitNote := func() {}
	wg.Go(func() {
		p, authErr = patio.AuthenticateHinted(ctx, a.keys, r.Header.Get("Authorization"), hint.ID)
		if authErr == nil && p.Team.ID == hint.ID {
			waitNote = a.noteKeyUse(r, p)
		}
	})
	wg.Go(func() { st, countErr = patio.Throttle(ctx, a.limiter, hint, now) })
	var answer bufferedResponse
	if err := a.serveOperation(&answer, r, op, hint.ID, itemID); err != nil {
		a.writeError(&answer, r, err)
	}
	wg.Wait()
	defer waitNote()
	if authErr != nil || p.Team.ID != hint.ID || p.Team.Plan != hint.Plan {
		// A count that failed or was refused counted nothing.
		if countErr == nil {
			if err := a.limiter.Uncount(context.WithoutCancel(ctx), hint.ID, now); err != nil {
				a.log.WarnContext(ctx, "take back a request's count", slog.String("request_id", requestID(ctx)),
					slog.String("team_id", hint.ID), slog.String("error", err.Error()))
			}
		}
		switch {
		case authErr != nil:
			a.writeError(w, r, authErr)
			return patio.Principal{}, true
		case p.Team.ID != hint.ID:
			return p, false
		}
		st, countErr = patio.Throttle(ctx, a.limiter, p.Team, now)
	}
	if !a.answerThrottled(w, r, st, countErr) {
		return p, true
	}
	if err := p.Authorize(name, patio.AccessRead); err != nil {
		a.writeError(w, r, err)
		return p, true
	}
	answer.sendTo(w)
	return p, true
}

// claimKeyUse reports whether this request is the one of this process to record its key's use:
// the first since patio.KeyUseEvery.
func (a *api) claimKeyUse(hash string) bool {
	now := a.now()
	for {
		last, loaded := a.keyUses.LoadOrStore(hash, now)
		if !loaded {
			return true
		}
		if now.Sub(last.(time.Time)) < patio.KeyUseEvery {
			return false
		}
		if a.keyUses.CompareAndSwap(hash, last, now) {
			return true
		}
	}
}

// serveAuthenticated serves an authenticated request the rate limit let through: the key's scope
// (403), the query string, then the operation.
func (a *api) serveAuthenticated(w http.ResponseWriter, r *http.Request, p patio.Principal,
	op func(http.ResponseWriter, *http.Request, string, string) error, name, itemID string) error {
	access := patio.AccessRead
	if r.Method != http.MethodGet {
		access = patio.AccessWrite
	}
	if err := p.Authorize(name, access); err != nil {
		return err
	}
	if r.Method != http.MethodGet {
		// The key is the change's actor: the record's row names it, and the dispatcher audits the
		// change from the table's stream.
		r = r.WithContext(patio.WithActor(r.Context(), patio.KeyActor(p.Key, requestID(r.Context()))))
	}
	return a.serveOperation(w, r, op, p.Team.ID, itemID)
}

// serveOperation serves a request of the team whose key may make it: the query string (a read of
// a record, and any write, takes none), then the operation.
func (a *api) serveOperation(w http.ResponseWriter, r *http.Request, op func(http.ResponseWriter, *http.Request, string, string) error,
	teamID, itemID string) error {
	values, err := strictQuery(r)
	if err != nil {
		return err
	}
	if (r.Method != http.MethodGet || itemID != "") && len(values) > 0 {
		k := slices.Sorted(maps.Keys(values))[0]
		return problem(patio.InQuery, k, "unknown query parameter %s", k)
	}
	return op(w, r, teamID, itemID)
}

// answerThrottled sets the rate headers of a counted request and reports whether it may be served;
// when not (429, or the count failed), it has answered the error.
func (a *api) answerThrottled(w http.ResponseWriter, r *http.Request, st patio.RateStatus, err error) bool {
	if st.Limit > 0 {
		setRateHeaders(w.Header(), st)
	}
	if err != nil {
		a.writeError(w, r, err)
		return false
	}
	return true
}

// bufferedResponse holds an answer until it may be sent.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *bufferedResponse) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// sendTo writes the held answer to w.
func (b *bufferedResponse) sendTo(w http.ResponseWriter) {
	maps.Copy(w.Header(), b.header)
	w.WriteHeader(cmp.Or(b.status, http.StatusOK))
	_, _ = w.Write(b.body.Bytes())
}

// setRateHeaders reports the window that binds first: the minute, or the day once its remainder is
// smaller.
func setRateHeaders(h http.Header, st patio.RateStatus) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(st.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(st.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(st.Reset.Unix(), 10))
	if st.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(int64((st.RetryAfter+time.Second-1)/time.Second), 10))
	}
}

// route finds the operation for the request's method and path: /api/v1/<resource> (GET, POST) and
// /api/v1/<resource>/<id> (GET, PUT, DELETE). Anything else, wrong methods included, is not found.
func (a *api) route(r *http.Request) (op func(http.ResponseWriter, *http.Request, string, string) error, name, id string, ok bool) {
	rest, found := strings.CutPrefix(r.URL.Path, "/api/v1/")
	if !found {
		return nil, "", "", false
	}
	name, id, hasID := strings.Cut(rest, "/")
	res, known := a.resources[name]
	if id, sub, ok := strings.Cut(id, "/"); ok && known && name == "vehicles" && id != "" {
		op, ok = a.photoRoute(r, sub)
		return op, name, id, ok
	}
	if !known || strings.Contains(id, "/") || (hasID && id == "") {
		return nil, "", "", false
	}
	switch {
	case !hasID && r.Method == http.MethodGet:
		op = res.list
	case !hasID && r.Method == http.MethodPost:
		op = res.create
	case hasID && r.Method == http.MethodGet:
		op = res.get
	case hasID && r.Method == http.MethodPut:
		op = res.update
	case hasID && r.Method == http.MethodDelete:
		op = res.archive
	default:
		return nil, "", "", false
	}
	return op, name, id, true
}

// readBody reads a POST or PUT body: one JSON object of at most MaxBodyBytes, with Content-Type
// application/json when a Content-Type is sent.
func readBody(r *http.Request) (body, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return nil, problem(patio.InHeader, "Content-Type", "Content-Type must be application/json")
		}
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, problem(patio.InBody, "", "the request body could not be read")
	}
	if len(data) > MaxBodyBytes {
		return nil, problem(patio.InBody, "", "the request body must be at most 1 MiB")
	}
	return parseBody(data)
}

// parseBody splits a body that must be one JSON object into its members.
func parseBody(data []byte) (body, error) {
	if err := scanJSON(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var b body
	if err := dec.Decode(&b); err != nil || b == nil {
		return nil, problem(patio.InBody, "", "the request body must be one JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, problem(patio.InBody, "", "the request body must be one JSON object")
	}
	return b, nil
}

// strictQuery parses the query string, refusing what Go's lenient r.URL.Query() would silently
// drop: ";" separators and malformed %-escapes.
func strictQuery(r *http.Request) (url.Values, error) {
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, problem(patio.InQuery, "", "the query string must be name=value pairs joined by & with valid %%-escapes")
	}
	return values, nil
}

// withDeadline bounds a request: a.deadline from now, or deadlineMargin before the caller's
// deadline when that is sooner. Every storage call takes the request's context, so past the
// deadline the request answers 500 INTERNAL_ERROR; a write is then whole or absent (one
// conditional put or one transaction).
func (a *api) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	d := time.Now().Add(a.deadline)
	if caller, ok := ctx.Deadline(); ok && caller.Add(-deadlineMargin).Before(d) {
		d = caller.Add(-deadlineMargin)
	}
	return context.WithDeadline(ctx, d)
}
