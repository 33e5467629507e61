package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

type activityJSON struct {
	ID          string  `json:"id"`
	Type        string  `json:"type"`
	Status      string  `json:"status"`
	DueAt       *string `json:"due_at"`
	CompletedAt *string `json:"completed_at"`
	Revision    int     `json:"revision"`
}

type financialJSON struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Amount   float64 `json:"amount"`
	PaidAt   *string `json:"paid_at"`
	Category string  `json:"category"`
}

type pageJSON[T any] struct {
	Data       []T `json:"data"`
	Pagination struct {
		Total int `json:"total"`
	} `json:"pagination"`
}

// The activities commands reach the use cases: creation, the transition table, the soft delete,
// lists; the rules themselves are tested in shared/patio.
func TestActivitiesCommands(t *testing.T) {
	setup(t)
	team := newTeam(t)
	due := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04:05Z")
	a, _ := adminOK[activityJSON](t, "activities", "create", "--team", team, "--type", "call", "--title", "Ligar para Maria",
		"--due-at", due)
	if a.Status != "pending" || a.DueAt == nil || a.Revision != 1 {
		t.Fatalf("activities create = %+v; want pending, due, revision 1", a)
	}
	done, _ := adminOK[activityJSON](t, "activities", "complete", "--team", team, "--id", a.ID)
	if done.Status != "completed" || done.CompletedAt == nil {
		t.Errorf("activities complete = %+v; want completed with completed_at", done)
	}
	msg := adminFails(t, "activities", "update", "--team", team, "--id", a.ID, "--status", "in_progress")
	if !strings.Contains(msg, "completed cannot become in_progress") {
		t.Errorf("completed → in_progress = %q; want the transition refused", msg)
	}
	reopened, _ := adminOK[activityJSON](t, "activities", "update", "--team", team, "--id", a.ID, "--status", "pending")
	if reopened.Status != "pending" || reopened.CompletedAt != nil {
		t.Errorf("reopen = %+v; want pending, completed_at cleared", reopened)
	}
	for _, args := range [][]string{{"activities", "list", "--team", team, "--overdue"}, {"activities", "overdue", "--team", team}} {
		if overdue, _ := adminOK[pageJSON[activityJSON]](t, args...); overdue.Pagination.Total != 1 {
			t.Errorf("%s = %+v; want the one past due", strings.Join(args, " "), overdue)
		}
	}
	cancelled, _ := adminOK[activityJSON](t, "activities", "cancel", "--team", team, "--id", a.ID)
	if cancelled.Status != "cancelled" {
		t.Errorf("activities cancel = %+v; want cancelled", cancelled)
	}
	if l, _ := adminOK[pageJSON[activityJSON]](t, "activities", "list", "--team", team); l.Pagination.Total != 0 {
		t.Errorf("activities list after cancel = %d; want 0 (cancelled left out)", l.Pagination.Total)
	}
	msg = adminFails(t, "activities", "create", "--team", team, "--type", "call", "--title", "x", "--vehicle", "0193a2b4-0000-7000-8000-00000000c1e7")
	if !strings.Contains(msg, "vehicle_id does not name a vehicle of this team") {
		t.Errorf("a link to an unknown vehicle = %q; want it refused", msg)
	}
}

func TestFinancialCommands(t *testing.T) {
	setup(t)
	team := newTeam(t)
	adminOK[map[string]any](t, "teams", "set-timezone", "--team", team, "--timezone", "Asia/Tokyo")
	if msg := adminFails(t, "teams", "set-timezone", "--team", team, "--timezone", "Mars/Olympus"); !strings.Contains(msg, "time zone") {
		t.Errorf("set-timezone Mars/Olympus = %q; want refused", msg)
	}
	if msg := adminFails(t, "financial", "create", "--team", team, "--type", "cost", "--category", "aluguel",
		"--description", "x", "--amount", "10", "--due-date", "2026-01-01"); !strings.Contains(msg, "category must be one of") {
		t.Errorf("a category of another type = %q; want refused", msg)
	}
	var ids []string
	cents := 0
	for i := range 30 {
		amount := fmt.Sprintf("%d.%02d", 10+i, (i*37)%100)
		cents += (10+i)*100 + (i*37)%100
		f, _ := adminOK[financialJSON](t, "financial", "create", "--team", team, "--type", "revenue", "--category", "comissao",
			"--description", "Comissão", "--amount", amount, "--due-date", "2026-03-15")
		ids = append(ids, f.ID)
	}
	paid, _ := adminOK[financialJSON](t, "financial", "pay", "--team", team, "--id", ids[0], "--payment-method", "pix")
	if paid.Status != "paid" || paid.PaidAt == nil {
		t.Errorf("financial pay = %+v; want paid with paid_at", paid)
	}
	if msg := adminFails(t, "financial", "update", "--team", team, "--id", ids[0], "--status", "cancelled"); !strings.Contains(msg, "paid cannot become cancelled") {
		t.Errorf("paid → cancelled = %q; want refused", msg)
	}
	type summaryJSON struct {
		Records int            `json:"records"`
		ByType  map[string]any `json:"by_type"`
	}
	s, out := adminOK[summaryJSON](t, "financial", "summary", "--team", team, "--from", "2026-03-01", "--to", "2026-03-31")
	if s.Records != 30 || !strings.Contains(out, fmt.Sprintf(`"revenue": %d.%02d`, cents/100, cents%100)) {
		t.Errorf("financial summary = %s; want 30 records, revenue %d.%02d exactly", out, cents/100, cents%100)
	}
	for _, args := range [][]string{{"financial", "overdue", "--team", team, "--limit", "100"},
		{"financial", "list", "--team", team, "--overdue", "--limit", "100"}} {
		if overdue, _ := adminOK[pageJSON[financialJSON]](t, args...); overdue.Pagination.Total != 29 {
			t.Errorf("%s = %d; want the 29 still pending (due 2026-03-15)", strings.Join(args, " "), overdue.Pagination.Total)
		}
	}
	byMethod, _ := adminOK[pageJSON[financialJSON]](t, "financial", "list", "--team", team, "--payment-method", "pix,boleto")
	if byMethod.Pagination.Total != 1 || len(byMethod.Data) != 1 || byMethod.Data[0].ID != ids[0] {
		t.Errorf("financial list --payment-method pix,boleto = %+v; want the one paid by pix", byMethod)
	}
}

// TestEmptyListsAsText: a list with nothing to show says so in words, not "page 1 of 0".
func TestEmptyListsAsText(t *testing.T) {
	setup(t)
	team := newTeam(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"activities", "list", "--team", team, "--overdue"}, "no overdue activities\n"},
		{[]string{"activities", "overdue", "--team", team}, "no overdue activities\n"},
		{[]string{"activities", "list", "--team", team}, "no activities match\n"},
		{[]string{"financial", "overdue", "--team", team}, "no overdue financial records\n"},
		{[]string{"financial", "list", "--team", team, "--overdue"}, "no overdue financial records\n"},
		{[]string{"financial", "list", "--team", team}, "no financial records match\n"},
	} {
		if got := adminText(t, tt.args...); got != tt.want {
			t.Errorf("%v printed %q; want %q", tt.args, got, tt.want)
		}
	}
	adminOK[activityJSON](t, "activities", "create", "--team", team, "--type", "call", "--title", "Ligar", "--due-at", "2030-03-15T18:00:00Z")
	if got, want := adminText(t, "activities", "list", "--team", team, "--page", "3"), "page 3 is past the last page (1 page, 1 in all)\n"; got != want {
		t.Errorf("activities list --page 3 printed %q; want %q", got, want)
	}
}

// movedJSON is what a status move prints, of an activity or a financial record.
type movedJSON struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	CompletedAt *string `json:"completed_at"`
	PaidAt      *string `json:"paid_at"`
}

// TestModuleMoves: the status moves the console has (start, complete, cancel, reopen; pay, cancel,
// reopen) follow the transition table, print the record moved, and are each in the team's audit
// log as the operator's change of the status.
func TestModuleMoves(t *testing.T) {
	store := setup(t)
	team := newTeam(t)
	a, _ := adminOK[movedJSON](t, "activities", "create", "--team", team, "--type", "task", "--title", "Preparar o Corolla")
	f, _ := adminOK[movedJSON](t, "financial", "create", "--team", team, "--type", "cost", "--category", "mecanica",
		"--description", "Troca de óleo", "--amount", "250", "--due-date", "2030-03-15")
	paidAt := time.Now().UTC().Add(-48 * time.Hour).Format("2006-01-02T15:04:05Z")
	for _, tt := range []struct {
		name, module, move, id string
		flags                  []string
		status                 string // the status moved to; "" when refused
		stamp                  bool   // completed_at or paid_at is set
		refusal                string
	}{
		{name: "start", module: "activities", move: "start", id: a.ID, status: "in_progress"},
		{name: "complete", module: "activities", move: "complete", id: a.ID, status: "completed", stamp: true},
		{name: "start a completed one", module: "activities", move: "start", id: a.ID,
			refusal: "an activity that is completed cannot become in_progress"},
		{name: "reopen a completed one", module: "activities", move: "reopen", id: a.ID, status: "pending"},
		{name: "cancel", module: "activities", move: "cancel", id: a.ID, status: "cancelled"},
		{name: "reopen a cancelled one", module: "activities", move: "reopen", id: a.ID, status: "pending"},
		{name: "pay", module: "financial", move: "pay", id: f.ID, flags: []string{"--payment-method", "pix", "--paid-at", paidAt},
			status: "paid", stamp: true},
		{name: "cancel a paid one", module: "financial", move: "cancel", id: f.ID, status: "cancelled"},
		{name: "reopen a cancelled record", module: "financial", move: "reopen", id: f.ID, status: "pending"},
		{name: "pay again", module: "financial", move: "pay", id: f.ID, status: "paid", stamp: true},
		{name: "reopen a paid record", module: "financial", move: "reopen", id: f.ID, status: "pending"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{tt.module, tt.move, "--team", team, "--id", tt.id}, tt.flags...)
			if tt.refusal != "" {
				if msg := adminFails(t, args...); !strings.Contains(msg, tt.refusal) {
					t.Errorf("%s = %q; want %q", strings.Join(args, " "), msg, tt.refusal)
				}
				return
			}
			got, _ := adminOK[movedJSON](t, args...)
			stamp := got.CompletedAt != nil || got.PaidAt != nil
			if got.ID != tt.id || got.Status != tt.status || stamp != tt.stamp {
				t.Errorf("%s = %+v; want %s, completed_at or paid_at set: %v", strings.Join(args, " "), got, tt.status, tt.stamp)
			}
			if tt.move == "pay" && tt.flags != nil && (got.PaidAt == nil || *got.PaidAt != paidAt) {
				t.Errorf("%s: paid_at = %v; want %s, as given", strings.Join(args, " "), got.PaidAt, paidAt)
			}
		})
	}
	want := a.ID + "  task  in_progress  due -  Preparar o Corolla  "
	if got := adminText(t, "activities", "start", "--team", team, "--id", a.ID); !strings.HasPrefix(got, want) {
		t.Errorf("activities start printed %q; want the activity's line, %q…", got, want)
	}

	entries, _, err := store.AuditPage(context.Background(), team, patio.AuditQuery{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string][]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Action, ".create") && !slices.Contains(e.Fields, "status") {
			t.Errorf("audit entry %s of %s changed %v; want the status among them", e.Action, e.Target, e.Fields)
		}
		actions[e.Target] = append(actions[e.Target], strings.TrimPrefix(e.Action, strings.Split(e.Target, ":")[0]+"."))
	}
	for target, want := range map[string]string{
		// Each move is logged by what it did.
		"activity:" + a.ID:  "start,reopen,cancel,reopen,complete,start,create",
		"financial:" + f.ID: "reopen,pay,reopen,cancel,pay,create",
	} {
		if got := strings.Join(actions[target], ","); got != want {
			t.Errorf("audit of %s (newest first) = %s; want %s", target, got, want)
		}
	}
}

// adminText runs the tool without --json, which must succeed, and returns what it printed.
func adminText(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root, _ := newRoot(&out)
	root.SetArgs(args)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("admin %s = %v; want success", strings.Join(args, " "), err)
	}
	return out.String()
}
