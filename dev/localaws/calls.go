package localaws

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// Calls counts the AWS calls made through the configurations it was attached to, by component
// (who made them: "api", "streams", "queue"...) and operation, with their attempts and time: the
// local stack's profile of what it asks of its engines.
type Calls struct {
	mu     sync.Mutex
	counts map[callKey]*callStat
}

type callKey struct{ component, service, op string }

type callStat struct {
	calls, attempts, failed int
	total                   time.Duration
	lat                     []time.Duration
}

// NewCalls returns an empty count.
func NewCalls() *Calls { return &Calls{counts: map[callKey]*callStat{}} }

// Attach returns cfg with every call counted under component.
func (c *Calls) Attach(cfg aws.Config, component string) aws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), func(s *middleware.Stack) error {
		if err := s.Initialize.Add(middleware.InitializeMiddlewareFunc("patioCountCalls",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				c.record(callKey{component, awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)}, time.Since(start), err)
				return out, md, err
			}), middleware.Before); err != nil {
			return err
		}
		return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("patioCountAttempts",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.attempt(callKey{component, awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)})
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
	return cfg
}

func (c *Calls) stat(k callKey) *callStat {
	s := c.counts[k]
	if s == nil {
		s = &callStat{}
		c.counts[k] = s
	}
	return s
}

func (c *Calls) record(k callKey, d time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stat(k)
	s.calls++
	s.total += d
	s.lat = append(s.lat, d)
	if err != nil {
		s.failed++
	}
}

func (c *Calls) attempt(k callKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stat(k).attempts++
}

// Take returns the counts since the last Take as lines (component, service, operation, calls,
// attempts, failures, p50 and p99), most calls first, and starts a new count.
func (c *Calls) Take(window time.Duration) string {
	c.mu.Lock()
	counts := c.counts
	c.counts = map[callKey]*callStat{}
	c.mu.Unlock()
	keys := make([]callKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return counts[keys[i]].calls > counts[keys[j]].calls })
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %-16s %-22s %8s %8s %8s %8s %9s %9s\n", "component", "service", "operation", "calls", "per s", "attempts", "failed", "p50", "p99")
	for _, k := range keys {
		s := counts[k]
		slices.Sort(s.lat)
		fmt.Fprintf(&b, "%-10s %-16s %-22s %8d %8.1f %8d %8d %9s %9s\n", k.component, k.service, k.op, s.calls,
			float64(s.calls)/window.Seconds(), s.attempts, s.failed, pct(s.lat, 50).Round(100*time.Microsecond), pct(s.lat, 99).Round(100*time.Microsecond))
	}
	return b.String()
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)*p+99)/100-1]
}

// Report writes Take's lines to w every interval until ctx ends.
func (c *Calls) Report(ctx context.Context, interval time.Duration, w io.Writer) {
	Tick(ctx, interval, func(now time.Time) bool {
		fmt.Fprintf(w, "local: AWS calls in the last %s, %s\n%s", interval, now.Format(time.TimeOnly), c.Take(interval))
		return true
	})
}
