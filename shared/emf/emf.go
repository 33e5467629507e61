// Package emf turns log lines into CloudWatch metrics with the embedded metric format (EMF): a
// JSON log line that carries an "_aws" member declaring some of its members as metrics, which
// CloudWatch Logs extracts when the line reaches it (a Lambda function's log group). No API call,
// no agent: the metrics cost one log line that is written anyway.
//
// Handler wraps a JSON slog.Handler and adds the declaration to the lines that carry the stable
// keys below, so that the code that logs knows nothing of metrics:
//
//   - the API's "request" line with a "plan" (an authenticated request): Requests (1) and
//     RateLimited (1 when "status" is 429, else 0), dimension Plan;
//   - a line with "outcome" ("succeeded" or "failed", a webhook delivery attempt): DeliveryAttempts
//     (1), dimension Outcome;
//   - a line with "dispatch_lag_ms" (a delivery queued by the dispatcher): DispatchLag, in
//     milliseconds from the change to its delivery being queued, no dimension.
//
// No metric has a per-team dimension: CloudWatch bills custom metrics per dimension value. Per-team
// views come from the API access logs (docs/operations.md).
package emf

import (
	"context"
	"log/slog"
)

// Handler adds EMF declarations under namespace to the records it recognises, then hands every
// record to next. Attributes added with With are not inspected: the keys above are logged with
// the message.
type Handler struct {
	next      slog.Handler
	namespace string
}

// NewHandler returns next wrapped; with an empty namespace it returns next itself.
func NewHandler(next slog.Handler, namespace string) slog.Handler {
	if namespace == "" {
		return next
	}
	return &Handler{next: next, namespace: namespace}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(as), namespace: h.namespace}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), namespace: h.namespace}
}

// Metric is one metric of a document: its name (also the log line's member holding the value),
// unit and value.
type Metric struct {
	Name  string
	Unit  string
	Value float64
}

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	var plan, outcome string
	var status int64
	var lag float64
	var hasLag bool
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "plan":
			plan = a.Value.String()
		case "status":
			if a.Value.Kind() == slog.KindInt64 {
				status = a.Value.Int64()
			}
		case "outcome":
			outcome = a.Value.String()
		case "dispatch_lag_ms":
			hasLag = true
			switch a.Value.Kind() {
			case slog.KindInt64:
				lag = float64(a.Value.Int64())
			case slog.KindFloat64:
				lag = a.Value.Float64()
			}
		}
		return true
	})
	var attrs []slog.Attr
	switch {
	case r.Message == "request" && plan != "":
		limited := 0.0
		if status == 429 {
			limited = 1
		}
		attrs = Attrs(h.namespace, r.Time.UnixMilli(), map[string]string{"Plan": plan},
			Metric{"Requests", "Count", 1}, Metric{"RateLimited", "Count", limited})
	case outcome != "":
		attrs = Attrs(h.namespace, r.Time.UnixMilli(), map[string]string{"Outcome": outcome},
			Metric{"DeliveryAttempts", "Count", 1})
	case hasLag:
		attrs = Attrs(h.namespace, r.Time.UnixMilli(), nil, Metric{"DispatchLag", "Milliseconds", lag})
	}
	if attrs != nil {
		r = r.Clone()
		r.AddAttrs(attrs...)
	}
	return h.next.Handle(ctx, r)
}

// Attrs returns the members that make a JSON log line an EMF document: "_aws" (timestamp in unix
// milliseconds, namespace, one dimension set of every dimension given, the metrics' names and
// units), each dimension's value and each metric's value.
func Attrs(namespace string, timestampMs int64, dims map[string]string, metrics ...Metric) []slog.Attr {
	names := make([]string, 0, len(dims))
	attrs := make([]slog.Attr, 0, 1+len(dims)+len(metrics))
	for k, v := range dims {
		names = append(names, k)
		attrs = append(attrs, slog.String(k, v))
	}
	defs := make([]map[string]string, len(metrics))
	for i, m := range metrics {
		defs[i] = map[string]string{"Name": m.Name, "Unit": m.Unit}
		attrs = append(attrs, slog.Float64(m.Name, m.Value))
	}
	aws := map[string]any{
		"Timestamp": timestampMs,
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  namespace,
			"Dimensions": [][]string{names},
			"Metrics":    defs,
		}},
	}
	return append([]slog.Attr{slog.Any("_aws", aws)}, attrs...)
}
