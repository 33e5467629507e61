package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"
)

// Email is an email moto's SES holds: every email the local stack sent, since moto keeps them
// instead of delivering them.
type Email struct {
	Source       string
	Destinations map[string][]string // "ToAddresses" → addresses
	Subject      string
	Body         string
}

// SentEmails returns the emails moto's SES (at AWS_ENDPOINT_URL_SESV2) holds for address, oldest
// first. When moto is not there it skips the test, or fails it under CI=true.
func SentEmails(t testing.TB, address string) []Email {
	t.Helper()
	endpoint := os.Getenv("AWS_ENDPOINT_URL_SESV2")
	if endpoint == "" {
		unavailable(t, errors.New("AWS_ENDPOINT_URL_SESV2 is not set"))
	}
	out, err := MotoEmails(endpoint, address)
	var unreachable *unreachableError
	if errors.As(err, &unreachable) {
		unavailable(t, err)
	}
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return out
}

// unreachableError is moto not answering.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// MotoEmails returns the emails moto at endpoint holds for address (in its SES backend, which
// keeps every email sent instead of delivering it), oldest first.
func MotoEmails(endpoint, address string) ([]Email, error) {
	resp, err := http.Get(endpoint + "/moto-api/data.json")
	if err != nil {
		return nil, &unreachableError{err}
	}
	defer resp.Body.Close()
	var data struct {
		SES struct {
			Message []struct {
				Source       string              `json:"source"`
				Destinations map[string][]string `json:"destinations"`
				Subject      string              `json:"subject"`
				Body         string              `json:"body"`
			}
		} `json:"ses"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&data); err != nil {
		return nil, fmt.Errorf("moto's SES data: %w", err)
	}
	var out []Email
	for _, m := range data.SES.Message {
		dest, _ := json.Marshal(m.Destinations)
		if bytes.Contains(dest, []byte(address)) {
			out = append(out, Email(m))
		}
	}
	return out, nil
}
