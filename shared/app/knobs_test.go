package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/app"
)

func TestWebhookFunctionsRefuseLocalKnobs(t *testing.T) {
	builds := map[string]func(context.Context, *slog.Logger) error{
		"dispatcher": func(ctx context.Context, l *slog.Logger) error { _, err := app.LambdaDispatcher(ctx, l); return err },
		"deliverer":  func(ctx context.Context, l *slog.Logger) error { _, err := app.LambdaDeliverer(ctx, l); return err },
	}
	for fn, build := range builds {
		for _, name := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE"} {
			t.Run(fn+"/"+name, func(t *testing.T) {
				t.Setenv(name, "x")
				if err := build(context.Background(), slog.Default()); err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("%s build with %s set = %v; want a refusal naming it", fn, name, err)
				}
			})
		}
	}
}
