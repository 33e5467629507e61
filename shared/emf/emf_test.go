package emf_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/patio-dev/patio/shared/emf"
)

// emfDoc is the part of an EMF log line CloudWatch reads.
type emfDoc struct {
	AWS struct {
		Timestamp         int64
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	} `json:"_aws"`
}

func TestHandler(t *testing.T) {
	tests := []struct {
		name    string
		log     func(*slog.Logger)
		metrics map[string]float64 // metric name → value; nil: no document
		dims    []string
	}{
		{"authenticated request", func(l *slog.Logger) {
			l.Info("request", slog.String("plan", "starter"), slog.Int("status", 200), slog.Float64("duration_ms", 3.2))
		}, map[string]float64{"Requests": 1, "RateLimited": 0}, []string{"Plan"}},
		{"rate limited request", func(l *slog.Logger) {
			l.Info("request", slog.String("plan", "professional"), slog.Int("status", 429))
		}, map[string]float64{"Requests": 1, "RateLimited": 1}, []string{"Plan"}},
		{"unauthenticated request", func(l *slog.Logger) {
			l.Info("request", slog.String("plan", ""), slog.Int("status", 401))
		}, nil, nil},
		{"delivery attempt", func(l *slog.Logger) {
			l.With(slog.String("team_id", "t1")).Info("delivery succeeded", slog.String("outcome", "succeeded"))
		}, map[string]float64{"DeliveryAttempts": 1}, []string{"Outcome"}},
		{"dispatch lag", func(l *slog.Logger) {
			l.Info("delivery queued", slog.Int64("dispatch_lag_ms", 1500))
		}, map[string]float64{"DispatchLag": 1500}, []string{}},
		{"other line", func(l *slog.Logger) { l.Info("startup", slog.String("x", "y")) }, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(slog.New(emf.NewHandler(slog.NewJSONHandler(&buf, nil), "Patio/test")))
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("log line %s: %v", buf.Bytes(), err)
			}
			if tt.metrics == nil {
				if _, ok := line["_aws"]; ok {
					t.Fatalf("line %s has _aws; want none", buf.Bytes())
				}
				return
			}
			var doc emfDoc
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.AWS.CloudWatchMetrics) != 1 || doc.AWS.CloudWatchMetrics[0].Namespace != "Patio/test" || doc.AWS.Timestamp == 0 {
				t.Fatalf("_aws = %+v; want one directive in Patio/test with a timestamp", doc.AWS)
			}
			d := doc.AWS.CloudWatchMetrics[0]
			if len(d.Dimensions) != 1 || len(d.Dimensions[0]) != len(tt.dims) {
				t.Errorf("dimensions = %v; want [%v]", d.Dimensions, tt.dims)
			}
			for _, dim := range tt.dims {
				if _, ok := line[dim].(string); !ok {
					t.Errorf("dimension %s has no value in %s", dim, buf.Bytes())
				}
			}
			if len(d.Metrics) != len(tt.metrics) {
				t.Errorf("metrics = %+v; want %v", d.Metrics, tt.metrics)
			}
			for _, m := range d.Metrics {
				if got := line[m.Name]; got != tt.metrics[m.Name] {
					t.Errorf("%s = %v; want %v", m.Name, got, tt.metrics[m.Name])
				}
			}
		})
	}
}

func TestNoNamespaceNoMetrics(t *testing.T) {
	var buf bytes.Buffer
	slog.New(emf.NewHandler(slog.NewJSONHandler(&buf, nil), "")).Info("request", slog.String("plan", "starter"), slog.Int("status", 200))
	if bytes.Contains(buf.Bytes(), []byte("_aws")) {
		t.Errorf("line %s declares metrics without a namespace", buf.Bytes())
	}
}
