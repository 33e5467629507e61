package xray_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/shared/xray"
)

// stubHTTP answers every request with status and body, as DynamoDB would.
type stubHTTP struct {
	status int
	body   string
}

func (s stubHTTP) Do(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: s.status, Request: r, Body: io.NopCloser(strings.NewReader(s.body)),
		Header: http.Header{"X-Amzn-Requestid": {"REQ123"}, "Content-Type": {"application/x-amz-json-1.0"}}}, nil
}

// daemon is a UDP socket standing in for the X-Ray daemon.
func daemon(t *testing.T) (*net.UDPConn, string) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, c.LocalAddr().String()
}

// receive reads one segment document, or returns nil after a short wait.
func receive(t *testing.T, c *net.UDPConn) *xray.Subsegment {
	t.Helper()
	buf := make([]byte, 64*1024)
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := c.Read(buf)
	if err != nil {
		return nil
	}
	header, doc, ok := bytes.Cut(buf[:n], []byte("\n"))
	if !ok || string(header) != `{"format":"json","version":1}` {
		t.Fatalf("datagram %q: want the daemon's header line, then the document", buf[:n])
	}
	var s xray.Subsegment
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestSubsegments(t *testing.T) {
	const trace = "Root=1-6740a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1"
	tests := []struct {
		name   string
		header string
		status int
		body   string
		want   bool // a subsegment is sent
		error  bool
	}{
		{"sampled call", trace, 200, "{}", true, false},
		{"sampled failed call", trace, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"no table"}`, true, true},
		{"not sampled", strings.Replace(trace, "Sampled=1", "Sampled=0", 1), 200, "{}", false, false},
		{"outside an invocation", "", 200, "{}", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, addr := daemon(t)
			cfg := aws.Config{Region: "us-east-1", HTTPClient: stubHTTP{tt.status, tt.body},
				Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), RetryMaxAttempts: 1}
			xray.Instrument(&cfg, "udp:"+addr+" tcp:127.0.0.1:1")
			ctx := context.Background()
			if tt.header != "" {
				//lint:ignore SA1029 the key is aws-lambda-go's, a plain string
				ctx = context.WithValue(ctx, "x-amzn-trace-id", tt.header)
			}
			_, err := dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Vehicles"),
				Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}}})
			if (err != nil) != tt.error {
				t.Fatalf("GetItem error = %v; want error %v", err, tt.error)
			}
			s := receive(t, conn)
			if !tt.want {
				if s != nil {
					t.Fatalf("sent %+v; want nothing", s)
				}
				return
			}
			if s == nil {
				t.Fatal("no subsegment received")
			}
			if s.Name != "DynamoDB" || s.Type != "subsegment" || s.Namespace != "aws" ||
				s.TraceID != "1-6740a1b2-0123456789abcdef01234567" || s.ParentID != "53995c3f42cd8ad8" || len(s.ID) != 16 {
				t.Errorf("subsegment = %+v; want DynamoDB under the trace's parent", s)
			}
			if s.AWS["operation"] != "GetItem" || s.AWS["table_name"] != "Vehicles" || s.AWS["request_id"] != "REQ123" {
				t.Errorf("aws = %v; want operation, table and request id", s.AWS)
			}
			if s.HTTP == nil || s.HTTP.Response.Status != tt.status || s.Error != tt.error || s.End < s.Start {
				t.Errorf("subsegment = %+v; want status %d, error %v", s, tt.status, tt.error)
			}
		})
	}
}

func TestNoDaemonNoMiddleware(t *testing.T) {
	cfg := aws.Config{}
	xray.Instrument(&cfg, "")
	if len(cfg.APIOptions) != 0 {
		t.Errorf("APIOptions = %d; want none without a daemon", len(cfg.APIOptions))
	}
}

func TestParseHeader(t *testing.T) {
	h, ok := xray.ParseHeader("Root=1-a-b;Parent=c;Sampled=1;Lineage=x")
	if !ok || h.Root != "1-a-b" || h.Parent != "c" || !h.Sampled {
		t.Errorf("ParseHeader = %+v, %v", h, ok)
	}
	if _, ok := xray.ParseHeader("Root=1-a-b"); ok {
		t.Error("ParseHeader without Parent: ok; want false")
	}
}
