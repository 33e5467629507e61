// Package xray makes the AWS SDK calls of a Lambda invocation visible in AWS X-Ray: each call
// (DynamoDB, SQS, SES, ...) made under a sampled trace becomes a subsegment of the function's
// segment, with its service, operation, table or queue, AWS request id, status and retries, sent to
// the X-Ray daemon that Lambda runs beside every function with active tracing.
//
// Why not a library: the X-Ray SDK for Go (v1; no v2 is published) pulls in gRPC, fasthttp and the
// v1 AWS SDK and doubles a function binary (24.7 MB for the vehicles function), and OpenTelemetry's
// SDK with its AWS SDK instrumentation adds 1.05 MB and still needs a collector (a Lambda layer)
// or a synchronous OTLP export at the end of each invocation. Both break the 12 MB budget of
// docs/operations.md. This package is one SDK middleware and the X-Ray daemon's documented UDP
// protocol (segment documents), about 10 KB of binary; docs/operations.md says how to read a trace.
package xray

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// traceHeaderKey is the context key under which aws-lambda-go puts the invocation's trace header
// (Lambda-Runtime-Trace-Id); the X-Ray SDK reads the same one.
const traceHeaderKey = "x-amzn-trace-id"

// Header is a parsed X-Ray trace header: Root=1-...;Parent=...;Sampled=1.
type Header struct {
	Root, Parent string
	Sampled      bool
}

// ParseHeader parses a trace header; ok is false when it names no root and parent.
func ParseHeader(s string) (h Header, ok bool) {
	for _, part := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Root":
			h.Root = v
		case "Parent":
			h.Parent = v
		case "Sampled":
			h.Sampled = v == "1"
		}
	}
	return h, h.Root != "" && h.Parent != ""
}

// FromContext returns the trace header of the Lambda invocation ctx belongs to.
func FromContext(ctx context.Context) (Header, bool) {
	s, _ := ctx.Value(traceHeaderKey).(string)
	if s == "" {
		return Header{}, false
	}
	return ParseHeader(s)
}

// Instrument adds the subsegment middleware to every client built from cfg, sending to the X-Ray
// daemon at daemon (AWS_XRAY_DAEMON_ADDRESS: "host:port", or "udp:host:port tcp:host:port"). With
// no daemon it does nothing; calls outside a sampled trace cost one context lookup.
func Instrument(cfg *aws.Config, daemon string) {
	addr := udpAddress(daemon)
	if addr == "" {
		return
	}
	e := &emitter{addr: addr}
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(e, middleware.After)
	})
}

func udpAddress(daemon string) string {
	for _, f := range strings.Fields(daemon) {
		if a, ok := strings.CutPrefix(f, "udp:"); ok {
			return a
		}
		if !strings.Contains(f, ":") || strings.HasPrefix(f, "tcp:") {
			continue
		}
		return f
	}
	return ""
}

// emitter is the middleware; it holds the daemon's UDP socket, opened on first use.
type emitter struct {
	addr string
	once sync.Once
	conn net.Conn
}

// ID implements middleware.InitializeMiddleware.
func (*emitter) ID() string { return "PatioXRaySubsegment" }

// HandleInitialize times the call (retries included) and sends its subsegment.
func (e *emitter) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	h, ok := FromContext(ctx)
	if !ok || !h.Sampled {
		return next.HandleInitialize(ctx, in)
	}
	start := time.Now()
	out, md, err := next.HandleInitialize(ctx, in)
	s := Subsegment{
		Name: awsmiddleware.GetServiceID(ctx), ID: NewID(), TraceID: h.Root, ParentID: h.Parent,
		Type: "subsegment", Namespace: "aws", Start: seconds(start), End: seconds(time.Now()),
		AWS: map[string]any{"operation": awsmiddleware.GetOperationName(ctx), "region": awsmiddleware.GetRegion(ctx)},
	}
	for field, key := range map[string]string{"TableName": "table_name", "QueueUrl": "queue_url"} {
		if v := stringField(in.Parameters, field); v != "" {
			s.AWS[key] = v
		}
	}
	if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok {
		s.AWS["request_id"] = id
	}
	if attempts, ok := retry.GetAttemptResults(md); ok && len(attempts.Results) > 1 {
		s.AWS["retries"] = len(attempts.Results) - 1
	}
	status := 0
	if raw, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		status = raw.StatusCode
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	if status != 0 {
		s.HTTP = &HTTP{Response: Response{Status: status}}
	}
	switch {
	case status == 429 || (err != nil && strings.Contains(err.Error(), "Throttl")):
		s.Error, s.Throttle = true, true
	case status >= 500 || (err != nil && status == 0):
		s.Fault = true
	case status >= 400:
		s.Error = true
	}
	e.send(s)
	return out, md, err
}

// send writes one segment document to the daemon; X-Ray is best effort, so errors are dropped.
func (e *emitter) send(s Subsegment) {
	e.once.Do(func() { e.conn, _ = net.Dial("udp", e.addr) })
	if e.conn == nil {
		return
	}
	doc, err := json.Marshal(s)
	if err != nil {
		return
	}
	_, _ = e.conn.Write(append([]byte("{\"format\":\"json\",\"version\":1}\n"), doc...))
}

// Subsegment is an X-Ray segment document of type subsegment, sent on its own (its parent, the
// function's segment, is Lambda's).
type Subsegment struct {
	Name      string         `json:"name"`
	ID        string         `json:"id"`
	TraceID   string         `json:"trace_id"`
	ParentID  string         `json:"parent_id"`
	Type      string         `json:"type"`
	Namespace string         `json:"namespace"`
	Start     float64        `json:"start_time"`
	End       float64        `json:"end_time"`
	AWS       map[string]any `json:"aws,omitempty"`
	HTTP      *HTTP          `json:"http,omitempty"`
	Error     bool           `json:"error,omitempty"`
	Fault     bool           `json:"fault,omitempty"`
	Throttle  bool           `json:"throttle,omitempty"`
}

// HTTP is a subsegment's http member.
type HTTP struct {
	Response Response `json:"response"`
}

// Response is the response part of HTTP.
type Response struct {
	Status int `json:"status"`
}

// NewID returns a random 64-bit segment id in hex.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func seconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// stringField returns the *string or string field named name of the struct v points to, or "".
func stringField(v any, name string) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return ""
	}
	f := rv.FieldByName(name)
	switch {
	case !f.IsValid():
		return ""
	case f.Kind() == reflect.String:
		return f.String()
	case f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.String:
		return f.Elem().String()
	}
	return ""
}
