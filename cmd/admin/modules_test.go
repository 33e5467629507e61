package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
	overdue, _ := adminOK[pageJSON[activityJSON]](t, "activities", "list", "--team", team, "--overdue")
	if overdue.Pagination.Total != 1 {
		t.Errorf("activities list --overdue = %+v; want the one past due", overdue)
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
	overdue, _ := adminOK[pageJSON[financialJSON]](t, "financial", "overdue", "--team", team, "--limit", "100")
	if overdue.Pagination.Total != 29 {
		t.Errorf("financial overdue = %d; want the 29 still pending (due 2026-03-15)", overdue.Pagination.Total)
	}
	byMethod, _ := adminOK[pageJSON[financialJSON]](t, "financial", "list", "--team", team, "--payment-method", "pix,boleto")
	if byMethod.Pagination.Total != 1 || len(byMethod.Data) != 1 || byMethod.Data[0].ID != ids[0] {
		t.Errorf("financial list --payment-method pix,boleto = %+v; want the one paid by pix", byMethod)
	}
}
