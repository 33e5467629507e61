package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// record is a record as the API lists it after the run: its marker is the Idempotency-Key of the
// create that made it (a vehicle's and a deal's title, a client's notes until an edit).
type record struct {
	id, resource, marker string
	revision             int
}

// readRecords lists every record of the team, archived ones included, through the API.
func (a *api) readRecords(ctx context.Context) (map[string]record, error) {
	out := map[string]record{}
	for _, res := range []string{"vehicles", "clients", "deals"} {
		cursor := ""
		for {
			q := url.Values{"sort": {"updated_at"}, "updated_since": {"2000-01-01"}, "limit": {"100"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			page, next, err := a.list(ctx, "/api/v1/"+res+"?"+q.Encode())
			if err != nil {
				return nil, err
			}
			for _, r := range page {
				r.resource = res
				out[r.id] = r
			}
			if next == "" {
				break
			}
			cursor = next
		}
	}
	return out, nil
}

func (a *api) list(ctx context.Context, path string) ([]record, string, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", a.base+path, nil)
		if err != nil {
			return nil, "", err
		}
		req.Header.Set("Authorization", "Bearer "+a.key)
		resp, err := a.http.Do(req)
		if err != nil {
			return nil, "", err
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		phase, _ := a.hist.current()
		a.hist.add(entry{At: time.Now(), Sent: time.Now(), Phase: phase, Op: "ledger list", Method: "GET", Path: path, Attempt: 1, Status: resp.StatusCode,
			Counted: resp.Header.Get("X-RateLimit-Limit") != "" && resp.StatusCode != http.StatusTooManyRequests})
		if resp.StatusCode == http.StatusTooManyRequests {
			time.Sleep(2 * time.Second)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("GET %s = %d %s", path, resp.StatusCode, raw)
		}
		var env struct {
			Data []struct {
				ID       string `json:"id"`
				Revision int    `json:"revision"`
				Title    string `json:"title"`
				Notes    string `json:"notes"`
			} `json:"data"`
			Pagination struct {
				NextCursor *string `json:"next_cursor"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, "", err
		}
		var page []record
		for _, d := range env.Data {
			m := d.Title
			if !strings.HasPrefix(m, "chaos-") {
				m = d.Notes
			}
			page = append(page, record{id: d.ID, revision: d.Revision, marker: m})
		}
		next := ""
		if env.Pagination.NextCursor != nil {
			next = *env.Pagination.NextCursor
		}
		return page, next, nil
	}
}

// row is one line of the ledger's table: one phase (its fault and the quiet time after it).
type row struct {
	Phase              string         `json:"phase"`
	Requests           int            `json:"requests"`
	Answers            map[string]int `json:"answers"` // by status class: "2xx", "4xx", "429", "500", "503", "other", "none"
	Lost               int            `json:"lost_writes"`
	Duplicates         int            `json:"duplicate_records"`
	MissingEvents      int            `json:"missing_events"`
	Phantom            int            `json:"events_for_uncommitted"`
	ExtraEventIDs      int            `json:"extra_event_ids"`
	Repeated           int            `json:"repeated_deliveries"`
	AuditDrift         int            `json:"audit_drift"` // records whose audit entries are not one per revision
	FaultyFiveHundreds int            `json:"faulty_500s"`
	Recovery           float64        `json:"recovery_seconds"` // -1: not steady again before the phase ended
}

// ledger is the check of a run's history against the store after the stack drained.
type ledger struct {
	Rows       []*row `json:"rows"`
	CountDrift int    `json:"count_drift"` // the team's day counter minus the requests let through
	// Unknown are the attempts whose count the client cannot know: those whose connection failed
	// (the process killed before or after its count) and the 503s without rate headers (the
	// counter's own increment failed, perhaps after DynamoDB applied it). A drift from 0 to Unknown
	// is exact.
	Unknown   int    `json:"unknown"`
	IndexMend int    `json:"index_to_mend"`
	Duration  string `json:"duration"`
	// Drained is how long after the last phase every change had reached both webhooks and the
	// index had caught up (a process killed mid-send holds its claimed attempts until the claims
	// run out, then the sweep's copies send them).
	Drained float64 `json:"drain_seconds"`
	// Emails is the check of the SES phase's failing webhook (nil without that phase).
	Emails *emailCheck `json:"emails,omitempty"`
	// SteadyRate is the 2xx answers a second of the stack without faults (see recovery).
	SteadyRate float64 `json:"steady_rate"`

	rows map[string]*row
	born map[string]string // record id → the phase of the create that made it
}

// row returns the row of a phase, added at the end when new.
func (l *ledger) row(name string) *row {
	if r, ok := l.rows[name]; ok {
		return r
	}
	r := &row{Phase: name, Answers: map[string]int{}}
	l.rows[name] = r
	l.Rows = append(l.Rows, r)
	return r
}

// phaseOf is the phase a record was made in, as far as the history says.
func phaseOf(born map[string]string, id string) string {
	if p, ok := born[id]; ok {
		return p
	}
	return "(unattributed)"
}

// check builds the ledger: hist's answers against recs (the records after the drain) and what the
// receivers got. phases lists the phases in order with their fault windows.
func check(hist []entry, recs map[string]record, deliveries [][]delivery, phases []phaseWindow) *ledger {
	l := &ledger{rows: map[string]*row{}, born: map[string]string{}}
	for _, p := range phases {
		l.row(p.name)
	}
	get, born := l.row, l.born
	for _, e := range hist {
		if e.Op == "ledger list" {
			continue
		}
		r := get(e.Phase)
		if e.Attempt == 1 {
			r.Requests++
		}
		r.Answers[statusClass(e.Status)]++
		if e.Status >= 500 && e.Status != 503 && e.Faulty {
			r.FaultyFiveHundreds++
		}
		if e.Status < 200 || e.Status > 299 {
			continue
		}
		rec, ok := recs[e.ID]
		if e.Key != "" {
			born[e.ID] = e.Phase
		}
		if !ok || rec.revision < e.Revision {
			r.Lost++
		}
	}
	byMarker := map[string]int{}
	keyPhase := map[string]string{}
	for _, e := range hist {
		if e.Key != "" && e.Attempt == 1 {
			keyPhase[e.Key] = e.Phase
		}
	}
	for _, rec := range recs {
		if strings.HasPrefix(rec.marker, "chaos-") && rec.revision >= 1 {
			byMarker[rec.marker]++
		}
	}
	for m, n := range byMarker {
		if n > 1 {
			get(keyPhase[m]).Duplicates += n - 1
		}
	}
	checkEvents(l, recs, deliveries)
	return l
}

// checkEvents counts, per receiver, the changes (record, revision) with no event delivered, the
// events of no committed change, the changes with more than one event id of one type, and the
// deliveries of an event after its first.
func checkEvents(l *ledger, recs map[string]record, deliveries [][]delivery) {
	get := l.row
	phaseOf := func(id string) string { return phaseOf(l.born, id) }
	for _, got := range deliveries {
		ids := map[string]string{} // "id#rev#type" → event id
		seen := map[string]bool{}  // event id
		have := map[string]bool{}  // "id#rev"
		for _, d := range got {
			rec, ok := recs[d.ObjectID]
			if !ok || d.Revision > rec.revision || d.Revision < 1 {
				get(phaseOf(d.ObjectID)).Phantom++
				continue
			}
			if seen[d.EventID] {
				get(phaseOf(d.ObjectID)).Repeated++
				continue
			}
			seen[d.EventID] = true
			k := fmt.Sprintf("%s#%d#%s", d.ObjectID, d.Revision, d.Type)
			if prev, ok := ids[k]; ok && prev != d.EventID {
				get(phaseOf(d.ObjectID)).ExtraEventIDs++
			}
			ids[k] = d.EventID
			have[fmt.Sprintf("%s#%d", d.ObjectID, d.Revision)] = true
		}
		for _, rec := range recs {
			for rev := 1; rev <= rec.revision; rev++ {
				if !have[fmt.Sprintf("%s#%d", rec.id, rev)] {
					get(phaseOf(rec.id)).MissingEvents++
				}
			}
		}
	}
}

// auditDrift counts, by the phase each record was made in, the records whose audit entries are not
// one per change: as many as the record's revisions.
func (l *ledger) auditDrift(ctx context.Context, store *dynamostore.Store, teamID string, recs map[string]record) error {
	entries := map[string]int{} // record id → its entries
	q := patio.AuditQuery{Limit: patio.MaxAuditLimit}
	for {
		page, next, err := store.AuditPage(ctx, teamID, q)
		if err != nil {
			return err
		}
		for _, e := range page {
			if _, id, ok := strings.Cut(e.Target, ":"); ok {
				entries[id]++
			}
		}
		if next == "" {
			break
		}
		q.Cursor = next
	}
	for _, rec := range recs {
		if entries[rec.id] != rec.revision {
			l.row(phaseOf(l.born, rec.id)).AuditDrift++
		}
	}
	return nil
}

// statusClass is the column of a status in the table.
func statusClass(s int) string {
	switch {
	case s == 0:
		return "none"
	case s == 429, s == 500, s == 503:
		return fmt.Sprint(s)
	case s >= 200 && s < 300:
		return "2xx"
	case s >= 400 && s < 500:
		return "4xx"
	default:
		return "other"
	}
}

// recovery sets each phase's seconds from its fault's end to steady throughput: the first second
// from which the 2xx answers of the next 5 seconds average at least 80% of the steady rate, the
// rate of the second halves of every quiet time (the stack without faults, warmed up).
func recovery(l *ledger, hist []entry, phases []phaseWindow) {
	perSecond := map[int64]int{}
	for _, e := range hist {
		if e.Status >= 200 && e.Status < 300 && e.Op != "ledger list" {
			perSecond[e.At.Unix()]++
		}
	}
	count := func(from, to time.Time) (n int) {
		for s := from.Unix(); s < to.Unix(); s++ {
			n += perSecond[s]
		}
		return n
	}
	var n int
	var secs float64
	for _, p := range phases {
		if p.end.After(p.faultEnd) {
			mid := p.faultEnd.Add(p.end.Sub(p.faultEnd) / 2)
			n += count(mid, p.end)
			secs += float64(p.end.Unix() - mid.Unix())
		}
	}
	steady := float64(n) / max(secs, 1)
	l.SteadyRate = steady
	for i, p := range phases {
		r := l.Rows[i]
		r.Recovery = -1
		if p.name == "baseline" {
			r.Recovery = 0
			continue
		}
		for t := p.faultEnd; !t.Add(5 * time.Second).After(p.end); t = t.Add(time.Second) {
			if float64(count(t, t.Add(5*time.Second)))/5 >= 0.8*steady {
				r.Recovery = t.Sub(p.faultEnd).Seconds()
				break
			}
		}
	}
}

// countDrift is the team's requests counted today minus those the history says were let through:
// the answers that carried the rate headers, but a 429 (a request whose count could not be kept,
// the counter's store throttled, is answered 503 without them: refused, not counted).
func (l *ledger) countDrift(ctx context.Context, store *dynamostore.Store, teamID string, hist []entry) error {
	_, day, err := accountdb.NewCounters(store.DB()).RequestsCounted(ctx, teamID, time.Now())
	if err != nil {
		return err
	}
	through := 0
	for _, e := range hist {
		if e.Counted {
			through++
		}
		if e.Status == 0 || (e.Status == http.StatusServiceUnavailable && !e.Counted) {
			l.Unknown++
		}
	}
	l.CountDrift = day - through
	return nil
}

// print writes the ledger's table.
func (l *ledger) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\trequests\t2xx\t4xx\t429\t500\t503\tnone\tlost writes\tduplicate records\tmissing events\tuncommitted events\textra event ids\trepeated deliveries\taudit drift\t500s under fault\tsteady after (s)\t")
	for _, r := range l.Rows {
		rec := fmt.Sprintf("%.0f", r.Recovery)
		if r.Recovery < 0 {
			rec = "never"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", r.Phase, r.Requests, r.Answers["2xx"], r.Answers["4xx"],
			r.Answers["429"], r.Answers["500"], r.Answers["503"], r.Answers["none"], r.Lost, r.Duplicates, r.MissingEvents, r.Phantom,
			r.ExtraEventIDs, r.Repeated, r.AuditDrift, r.FaultyFiveHundreds, rec)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "steady throughput without faults: %.1f answers a second\n", l.SteadyRate)
	fmt.Fprintf(w, "count drift (day counter - requests let through): %d (exact from 0 to %d, the attempts whose count is unknown); index items to mend: %d; drained %.0f s after the last phase; run took %s\n",
		l.CountDrift, l.Unknown, l.IndexMend, l.Drained, l.Duration)
	if l.Emails != nil {
		fmt.Fprintf(w, "emails about the webhook failing from %s on: %d sent after SES refused %d sends (want %d: its warning and its alert)\n",
			sesPhase, l.Emails.Sent, l.Emails.Refused, emailsWanted)
	}
}

// emailCheck is what the team was told of a webhook failing from the SES phase on: its warning
// (after its 4th failed attempt, while SES refused every send) and its alert (disabled after the
// 6th), each once, whatever SES refused.
type emailCheck struct {
	Refused int `json:"ses_sends_refused"`
	Sent    int `json:"emails_sent"` // emails naming the failing webhook; 2 wanted
}

// emailsWanted are the emails a webhook failing from the SES phase on must cause: its warning and
// its alert.
const emailsWanted = 2

// broken lists the budgets the run broke.
func (l *ledger) broken(steadyWithin float64) []string {
	var out []string
	for _, r := range l.Rows {
		for name, n := range map[string]int{"lost writes": r.Lost, "duplicate records": r.Duplicates, "missing events": r.MissingEvents,
			"events for uncommitted changes": r.Phantom, "extra event ids": r.ExtraEventIDs, "500s under fault": r.FaultyFiveHundreds,
			"records without one audit entry per change": r.AuditDrift} {
			if n > 0 {
				out = append(out, fmt.Sprintf("%s: %d %s", r.Phase, n, name))
			}
		}
		if r.Recovery < 0 || r.Recovery > steadyWithin {
			out = append(out, fmt.Sprintf("%s: steady throughput not back within %.0f s", r.Phase, steadyWithin))
		}
	}
	if l.CountDrift < 0 || l.CountDrift > l.Unknown {
		out = append(out, fmt.Sprintf("count drift %d (exact from 0 to %d)", l.CountDrift, l.Unknown))
	}
	if l.IndexMend != 0 {
		out = append(out, fmt.Sprintf("%d index items to mend", l.IndexMend))
	}
	if l.Emails != nil && l.Emails.Sent != emailsWanted {
		out = append(out, fmt.Sprintf("%s: %d emails about the failing webhook (want its warning and its alert, once each)", sesPhase, l.Emails.Sent))
	}
	sort.Strings(out)
	return out
}
