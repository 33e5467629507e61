package awsjson_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"

	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/xray"
)

// These tests stand a stub server in for the services, for what the engines cannot be made to do
// (answer 500, throttle, check a signature's shape); the adapters built on this package are tested
// against moto.

var (
	jsonService = awsjson.Service{ID: "Cognito Identity Provider", SigningName: "cognito-idp",
		EndpointPrefix: "cognito-idp", TargetPrefix: "AWSCognitoIdentityProviderService"}
	restService = awsjson.Service{ID: "SESv2", SigningName: "ses", EndpointPrefix: "email"}
)

// answer is one canned response of the stub.
type answer struct {
	status int
	header http.Header
	body   string
}

// stub is a service answering its canned responses in turn (the last one forever), recording the
// requests it got.
type stub struct {
	mu       sync.Mutex
	answers  []answer
	requests []*http.Request
	bodies   []string
}

func newStub(t *testing.T, answers ...answer) (*stub, aws.Config) {
	t.Helper()
	s := &stub{answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cfg := aws.Config{Region: "sa-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "token")}
	return s, cfg
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	a := s.answers[min(len(s.requests), len(s.answers)-1)]
	s.requests = append(s.requests, r)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.Header().Set("X-Amzn-Requestid", "req-1")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func (s *stub) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// TestRequests: an AWS JSON 1.1 operation is a POST to / naming its target, a REST-JSON one goes to
// its path; both carry the input as JSON and a SigV4 signature for the service and region, except
// an anonymous operation, which is unsigned; the answer is decoded.
func TestRequests(t *testing.T) {
	tests := []struct {
		name                        string
		service                     awsjson.Service
		op                          awsjson.Operation
		method, path, target, ctype string
		signed                      bool
	}{
		{"AWS JSON 1.1", jsonService, awsjson.Operation{Name: "AdminCreateUser"}, "POST", "/",
			"AWSCognitoIdentityProviderService.AdminCreateUser", "application/x-amz-json-1.1", true},
		{"anonymous", jsonService, awsjson.Operation{Name: "InitiateAuth", Anonymous: true}, "POST", "/",
			"AWSCognitoIdentityProviderService.InitiateAuth", "application/x-amz-json-1.1", false},
		{"REST-JSON", restService, awsjson.Operation{Name: "SendEmail", Method: "POST", Path: "/v2/email/outbound-emails"},
			"POST", "/v2/email/outbound-emails", "", "application/json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, cfg := newStub(t, answer{status: 200, body: `{"Session":"abc"}`})
			var out struct{ Session string }
			if err := awsjson.New(cfg, tt.service).Call(context.Background(), tt.op, map[string]string{"Username": "ana"}, &out); err != nil {
				t.Fatalf("Call = %v", err)
			}
			if out.Session != "abc" {
				t.Errorf("answer decoded as %+v; want Session abc", out)
			}
			r := s.requests[0]
			if r.Method != tt.method || r.URL.Path != tt.path || r.Header.Get("X-Amz-Target") != tt.target ||
				r.Header.Get("Content-Type") != tt.ctype {
				t.Errorf("request %s %s target %q type %q; want %s %s %q %q", r.Method, r.URL.Path,
					r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type"), tt.method, tt.path, tt.target, tt.ctype)
			}
			if s.bodies[0] != `{"Username":"ana"}` {
				t.Errorf("body %s; want the input as JSON", s.bodies[0])
			}
			auth := r.Header.Get("Authorization")
			scope := "/sa-east-1/" + tt.service.SigningName + "/aws4_request"
			if signed := strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") && strings.Contains(auth, scope); signed != tt.signed {
				t.Errorf("Authorization %q; want signed (for %s) %v", auth, scope, tt.signed)
			}
			if tt.signed && r.Header.Get("X-Amz-Security-Token") != "token" {
				t.Errorf("X-Amz-Security-Token %q; want the session token", r.Header.Get("X-Amz-Security-Token"))
			}
		})
	}
}

// TestErrors: a refusal is the service's error code and message, read as the SDK's clients read
// them; transient failures are retried, at most three attempts in all, and refusals are not.
func TestErrors(t *testing.T) {
	refusal := answer{status: 400, body: `{"__type":"com.amazonaws.cognito#UsernameExistsException","message":"User exists"}`}
	tests := []struct {
		name     string
		answers  []answer
		code     string // "" for success
		message  string
		attempts int
	}{
		{"refusal, body", []answer{refusal}, "UsernameExistsException", "User exists", 1},
		{"refusal, header", []answer{{status: 404, header: http.Header{"X-Amzn-Errortype": {"NotFoundException:http://internal.amazon.com/"}},
			body: `{"message":"no such identity"}`}}, "NotFoundException", "no such identity", 1},
		{"REST-JSON code", []answer{{status: 400, body: `{"code":"AlreadyExistsException","Message":"exists"}`}}, "AlreadyExistsException", "exists", 1},
		{"server error, then success", []answer{{status: 500, body: `{"__type":"InternalErrorException"}`}, {status: 200, body: "{}"}}, "", "", 2},
		{"throttled, then success", []answer{{status: 400, body: `{"__type":"TooManyRequestsException"}`},
			{status: 400, body: `{"__type":"ThrottlingException"}`}, {status: 200, body: "{}"}}, "", "", 3},
		{"unavailable throughout", []answer{{status: 503, body: "<html>down</html>"}}, "UnknownError", "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, cfg := newStub(t, tt.answers...)
			err := awsjson.New(cfg, jsonService).Call(context.Background(), awsjson.Operation{Name: "AdminCreateUser"}, map[string]string{}, nil)
			if got := awsjson.Code(err); got != tt.code || (tt.code == "") != (err == nil) {
				t.Fatalf("Call = %v (code %q); want code %q", err, got, tt.code)
			}
			if s.count() != tt.attempts {
				t.Errorf("%d attempts; want %d", s.count(), tt.attempts)
			}
			if err == nil {
				return
			}
			var apiErr smithy.APIError
			var op *smithy.OperationError
			var re *awshttp.ResponseError
			if !errors.As(err, &apiErr) || apiErr.ErrorMessage() != tt.message || !errors.As(err, &op) ||
				op.OperationName != "AdminCreateUser" || !errors.As(err, &re) || re.RequestID != "req-1" {
				t.Errorf("error %v; want the message %q, the operation and the request id, as the SDK wraps them", err, tt.message)
			}
		})
	}
}

// TestUnreachable: a service that does not answer fails the call once its attempts are spent.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := aws.Config{Region: "sa-east-1", BaseEndpoint: aws.String("http://" + addr),
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}
	start := time.Now()
	err = awsjson.New(cfg, jsonService).Call(context.Background(), awsjson.Operation{Name: "InitiateAuth", Anonymous: true}, map[string]string{}, nil)
	if err == nil || awsjson.Code(err) != "" || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Call = %v; want the connection refused", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing took %s; want the few attempts' short backoff", d)
	}
}

// configSource answers the endpoint lookups of the SDK's configuration sources, as
// config.EnvConfig does from AWS_ENDPOINT_URL_<SERVICE> and AWS_IGNORE_CONFIGURED_ENDPOINT_URLS.
type configSource struct {
	endpoints map[string]string
	ignore    bool
}

func (s configSource) GetServiceBaseEndpoint(_ context.Context, id string) (string, bool, error) {
	v, ok := s.endpoints[id]
	return v, ok, nil
}

func (s configSource) GetIgnoreConfiguredEndpoints(context.Context) (bool, bool, error) {
	return s.ignore, s.ignore, nil
}

// TestEndpoint: the service's own variable first, then AWS_ENDPOINT_URL, then the regional
// endpoint, as the SDK's clients resolve them.
func TestEndpoint(t *testing.T) {
	own := configSource{endpoints: map[string]string{"SESv2": "http://127.0.0.1:5000"}}
	tests := []struct {
		name string
		cfg  aws.Config
		want string
	}{
		{"regional", aws.Config{Region: "sa-east-1"}, "https://email.sa-east-1.amazonaws.com"},
		{"China", aws.Config{Region: "cn-north-1"}, "https://email.cn-north-1.amazonaws.com.cn"},
		{"AWS_ENDPOINT_URL", aws.Config{Region: "sa-east-1", BaseEndpoint: aws.String("http://all:1")}, "http://all:1"},
		{"the service's own", aws.Config{Region: "sa-east-1", BaseEndpoint: aws.String("http://all:1"),
			ConfigSources: []any{configSource{}, own}}, "http://127.0.0.1:5000"},
		{"another service's", aws.Config{Region: "sa-east-1", ConfigSources: []any{configSource{endpoints: map[string]string{"SQS": "http://q"}}}},
			"https://email.sa-east-1.amazonaws.com"},
		{"configured endpoints ignored", aws.Config{Region: "sa-east-1", ConfigSources: []any{own, configSource{ignore: true}}},
			"https://email.sa-east-1.amazonaws.com"},
	}
	for _, tt := range tests {
		if got := awsjson.Endpoint(tt.cfg, restService); got != tt.want {
			t.Errorf("%s: Endpoint = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestTraced: under a sampled Lambda invocation, each call is an X-Ray subsegment (package xray's
// middleware in cfg.APIOptions), named for the service, with its operation, request id and status.
func TestTraced(t *testing.T) {
	daemon, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer daemon.Close()
	_, cfg := newStub(t, answer{status: 400, body: `{"__type":"NotAuthorizedException"}`})
	xray.Instrument(&cfg, daemon.LocalAddr().String())
	//lint:ignore SA1029 the key is aws-lambda-go's, a plain string
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-6740a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1")
	if err := awsjson.New(cfg, jsonService).Call(ctx, awsjson.Operation{Name: "InitiateAuth", Anonymous: true}, map[string]string{}, nil); err == nil {
		t.Fatal("Call = nil; want the refusal")
	}
	buf := make([]byte, 64*1024)
	_ = daemon.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := daemon.Read(buf)
	if err != nil {
		t.Fatalf("no subsegment: %v", err)
	}
	_, doc, _ := strings.Cut(string(buf[:n]), "\n")
	var s xray.Subsegment
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "Cognito Identity Provider" || s.AWS["operation"] != "InitiateAuth" || s.AWS["region"] != "sa-east-1" ||
		s.AWS["request_id"] != "req-1" || s.HTTP == nil || s.HTTP.Response.Status != 400 || !s.Error {
		t.Errorf("subsegment %s; want the service, operation, region, request id and the 400", doc)
	}
}
