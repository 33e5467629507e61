// Package faults injects the failures AWS services show every day between the local stack and its
// engines: an HTTP proxy in front of each engine endpoint (DynamoDB, DynamoDB Streams, SQS, SES,
// Cognito) that, per operation and at a set rate, answers the service's own throttling and
// internal-error shapes, adds latency, applies a call and then loses its answer (a timeout whose
// outcome the caller cannot know), resets the connection, or (SQS) acknowledges a delete it never
// forwards, so the message is handed over again.
//
// The stack reaches the proxies through the SDK's standard AWS_ENDPOINT_URL_<SERVICE> variables,
// as it reaches the engines without them: production code has no switch for this. Faults change
// while the stack runs, through Injector.Set or the injector's control endpoint.
package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is one kind of fault.
type Kind string

// The faults a Rule may inject.
const (
	// Throttle answers the service's throttling error (DynamoDB's
	// ProvisionedThroughputExceededException, SQS's RequestThrottled, ...) without forwarding.
	Throttle Kind = "throttle"
	// Throttling answers ThrottlingException (the account-level throttle) where the service has it.
	Throttling Kind = "throttling"
	// Error500 answers the service's internal error (HTTP 500) without forwarding.
	Error500 Kind = "error500"
	// TimeoutAfter forwards the call, lets the engine apply it, and then holds the answer until the
	// caller gives up, then drops the connection: the outcome is unknown to the caller.
	TimeoutAfter Kind = "timeout-after"
	// Reset closes the connection with a TCP reset before forwarding anything.
	Reset Kind = "reset"
	// Latency delays the call by Rule.Delay before forwarding it.
	Latency Kind = "latency"
	// LoseDelete acknowledges an SQS DeleteMessage or DeleteMessageBatch without forwarding it,
	// so the message is delivered again after its visibility timeout: SQS's duplicate delivery.
	LoseDelete Kind = "lose-delete"
)

var kinds = []Kind{Throttle, Throttling, Error500, TimeoutAfter, Reset, Latency, LoseDelete}

// Services are the engine endpoints the injector stands in front of, by the name a Spec uses.
var Services = []string{"dynamodb", "streams", "sqs", "ses", "cognito"}

// Rule is one fault of one service: Kind at Rate (0 to 1) of the calls of Op (every operation
// when empty). Delay is Latency's added time.
type Rule struct {
	Service string
	Op      string
	Kind    Kind
	Rate    float64
	Delay   time.Duration
}

// Spec is a set of rules; the first rule of a call's service and operation that fires decides it.
type Spec []Rule

// Parse reads a spec: groups separated by ';', each "service[/Operation]:fault=value,..." where
// value is a rate ("10%", "0.1") or, for latency, a delay with an optional rate
// ("latency=200ms" or "latency=200ms@25%"). "" and "off" are the empty spec. Example:
// "dynamodb:throttle=10%,timeout-after=2%;sqs/SendMessage:throttle=100%".
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "off" {
		return nil, nil
	}
	var spec Spec
	for group := range strings.SplitSeq(s, ";") {
		group = strings.TrimSpace(group)
		if group == "" {
			continue
		}
		target, faults, ok := strings.Cut(group, ":")
		if !ok {
			return nil, fmt.Errorf("faults: %q: want service[/Operation]:fault=rate[,fault=rate]", group)
		}
		service, op, _ := strings.Cut(strings.TrimSpace(target), "/")
		if !slices.Contains(Services, service) {
			return nil, fmt.Errorf("faults: unknown service %q (one of %s)", service, strings.Join(Services, ", "))
		}
		for f := range strings.SplitSeq(faults, ",") {
			r, err := parseRule(strings.TrimSpace(f))
			if err != nil {
				return nil, err
			}
			r.Service, r.Op = service, op
			spec = append(spec, r)
		}
	}
	return spec, nil
}

func parseRule(f string) (Rule, error) {
	name, value, ok := strings.Cut(f, "=")
	kind := Kind(name)
	if !ok || !slices.Contains(kinds, kind) {
		return Rule{}, fmt.Errorf("faults: %q: want one of %v with =rate", f, kinds)
	}
	r := Rule{Kind: kind, Rate: 1}
	if kind == Latency {
		delay, rate, hasRate := strings.Cut(value, "@")
		d, err := time.ParseDuration(delay)
		if err != nil || d < 0 {
			return Rule{}, fmt.Errorf("faults: %q: want latency=<duration>[@rate]", f)
		}
		r.Delay = d
		if !hasRate {
			return r, nil
		}
		value = rate
	}
	rate, err := parseRate(value)
	if err != nil {
		return Rule{}, fmt.Errorf("faults: %q: %w", f, err)
	}
	r.Rate = rate
	return r, nil
}

func parseRate(v string) (float64, error) {
	pct := strings.HasSuffix(v, "%")
	n, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if pct {
		n /= 100
	}
	if err != nil || n < 0 || n > 1 {
		return 0, fmt.Errorf("rate %q is not a percentage from 0%% to 100%% or a fraction from 0 to 1", v)
	}
	return n, nil
}

// String formats the spec as Parse reads it.
func (s Spec) String() string {
	var groups []string
	for _, r := range s {
		target := r.Service
		if r.Op != "" {
			target += "/" + r.Op
		}
		v := strconv.FormatFloat(r.Rate*100, 'f', -1, 64) + "%"
		if r.Kind == Latency {
			v = r.Delay.String() + "@" + v
		}
		groups = append(groups, target+":"+string(r.Kind)+"="+v)
	}
	if len(groups) == 0 {
		return "off"
	}
	return strings.Join(groups, ";")
}
