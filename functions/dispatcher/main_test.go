package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestRefusesLocalKnobs(t *testing.T) {
	for _, name := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "x")
			_, err := build(context.Background(), slog.Default())
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("build with %s set = %v; want a refusal naming it", name, err)
			}
		})
	}
}
