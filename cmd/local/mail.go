package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
)

// printEmails prints, as they are sent, the emails moto's SES at motoURL holds (invitations with
// their link and temporary password, webhook warnings): on the local stack no email leaves the
// machine, and this is how a developer reads them. It polls every interval until ctx ends.
func printEmails(ctx context.Context, motoURL string, w io.Writer, interval time.Duration) {
	seen := 0
	localaws.Tick(ctx, interval, func(time.Time) bool {
		msgs, err := sentEmails(ctx, motoURL)
		if err != nil || len(msgs) <= seen {
			return true
		}
		for _, m := range msgs[seen:] {
			var to []string
			for _, addrs := range m.Destinations {
				to = append(to, addrs...)
			}
			fmt.Fprintf(w, "\nlocal: email to %s: %s\n%s\n", strings.Join(to, ", "), m.Subject, indentText(m.Body))
		}
		seen = len(msgs)
		return true
	})
}

// sentEmail is one email moto's SES keeps.
type sentEmail struct {
	Destinations map[string][]string `json:"destinations"`
	Subject      string              `json:"subject"`
	Body         string              `json:"body"`
}

func sentEmails(ctx context.Context, motoURL string) ([]sentEmail, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, motoURL+"/moto-api/data.json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var data struct {
		SES struct {
			Message []sentEmail
		} `json:"ses"`
	}
	return data.SES.Message, json.NewDecoder(resp.Body).Decode(&data)
}

func indentText(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
