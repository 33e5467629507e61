package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// TimerHandler handles the timer function's scheduled (EventBridge) events.
type TimerHandler func(context.Context, events.EventBridgeEvent) error

// TimerPeriod is how often the timer runs on AWS: its schedule in template.yaml, rate(1 minute).
// Each tick looks this far ahead and waits, within its invocation, for what falls due before the
// next tick, so every timed event is recorded within moments of its time, well within the minute
// promised.
const TimerPeriod = time.Minute

// NewTimer returns the timer of activities and financial records on the configured tables, ticking
// every period. It fails when c lacks what TimerFunction needs.
func NewTimer(cfg aws.Config, c Config, period time.Duration) (patio.Timer, error) {
	if err := c.Require(TimerFunction); err != nil {
		return patio.Timer{}, err
	}
	return patio.Timer{Store: dynamostore.New(cfg, c.Tables), Lookahead: period}, nil
}

// Timer returns the handler of the timer function: one tick per scheduled invocation.
func Timer(cfg aws.Config, c Config, logger *slog.Logger) (TimerHandler, error) {
	t, err := NewTimer(cfg, c, TimerPeriod)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) error {
		fired, err := t.Tick(ctx)
		logger.InfoContext(ctx, "timer tick", slog.Int("fired", fired))
		return err
	}, nil
}

// LambdaTimer builds the timer function's handler from the environment.
func LambdaTimer(ctx context.Context, logger *slog.Logger) (TimerHandler, error) {
	return LambdaBuild(ctx, logger, Timer, TimerFunction)
}
