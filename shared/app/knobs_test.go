package app_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/consoleapp"
	"github.com/patio-dev/patio/shared/app/workers"
)

// TestLambdaFunctionsRefuseLocalKnobs: every Lambda entry point reads the process environment, and
// refuses to start with a local-only knob set, even to an empty value.
func TestLambdaFunctionsRefuseLocalKnobs(t *testing.T) {
	builds := []struct {
		name  string
		build func(context.Context, *slog.Logger) error
	}{
		{"vehicles", func(ctx context.Context, l *slog.Logger) error {
			_, err := app.LambdaAPI(ctx, l, app.Vehicles)
			return err
		}},
		{"authorizer", func(ctx context.Context, l *slog.Logger) error { _, err := app.LambdaAuthorizer(ctx, l); return err }},
		{"dispatcher", func(ctx context.Context, l *slog.Logger) error {
			_, err := workers.LambdaDispatcher(ctx, l)
			return err
		}},
		{"indexer", func(ctx context.Context, l *slog.Logger) error { _, err := app.LambdaIndexer(ctx, l); return err }},
		{"deliverer", func(ctx context.Context, l *slog.Logger) error { _, err := workers.LambdaDeliverer(ctx, l); return err }},
		{"console", func(ctx context.Context, l *slog.Logger) error { _, err := consoleapp.Lambda(ctx, l); return err }},
	}
	for _, fn := range builds {
		for _, name := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE"} {
			for _, value := range []string{"x", ""} {
				t.Run(fn.name+"/"+name+"="+value, func(t *testing.T) {
					t.Setenv(name, value)
					if err := fn.build(context.Background(), slog.Default()); err == nil || !strings.Contains(err.Error(), name) {
						t.Errorf("%s build with %s=%q set = %v; want a refusal naming it", fn.name, name, value, err)
					}
				})
			}
		}
	}
}

// TestConsoleRefusesIdentityOverrides: the console function refuses to start with the user pool's
// endpoint pointed elsewhere than Cognito (the local stack's moto), even to an empty value.
func TestConsoleRefusesIdentityOverrides(t *testing.T) {
	names := []string{"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER", "AWS_ENDPOINT_URL"}
	for _, name := range names {
		for _, value := range []string{"http://127.0.0.1:5000", ""} {
			t.Run(name+"="+value, func(t *testing.T) {
				for _, other := range names { // the test's own environment may set them
					t.Setenv(other, "")
					os.Unsetenv(other)
				}
				t.Setenv(name, value)
				if _, err := consoleapp.Lambda(context.Background(), slog.Default()); err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("console build with %s=%q set = %v; want a refusal naming it", name, value, err)
				}
			})
		}
	}
}
