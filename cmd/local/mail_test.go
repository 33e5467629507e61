package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestPrintEmails: each email moto's SES keeps is printed once, with its addressee, subject and
// body (an invitation's link and temporary password are how a developer signs a new member in).
func TestPrintEmails(t *testing.T) {
	var mu sync.Mutex
	messages := `[]`
	moto := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Write([]byte(`{"ses":{"Message":` + messages + `}}`))
	}))
	defer moto.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	go printEmails(ctx, moto.URL, &out, 10*time.Millisecond)
	mu.Lock()
	messages = `[{"destinations":{"ToAddresses":["ana@dealer.example"]},"subject":"Convite","body":"Entre em http://localhost:3001/console/login\nSenha temporária: Xy-123"}]`
	mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Xy-123") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	messages = `[{"destinations":{"ToAddresses":["ana@dealer.example"]},"subject":"Convite","body":"Senha temporária: Xy-123"},
		{"destinations":{"ToAddresses":["bia@dealer.example"]},"subject":"Aviso","body":"webhook falhando"}]`
	mu.Unlock()
	for !strings.Contains(out.String(), "bia@dealer.example") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := out.String()
	if !strings.Contains(got, "email to ana@dealer.example: Convite") || !strings.Contains(got, "http://localhost:3001/console/login") ||
		!strings.Contains(got, "email to bia@dealer.example: Aviso") || strings.Count(got, "Xy-123") != 1 {
		t.Errorf("printed %q; want each email once, with its addressee, subject and body", got)
	}
}
