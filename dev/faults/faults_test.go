package faults

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "off", in: "", want: "off"},
		{name: "rates", in: "dynamodb:throttle=10%,timeout-after=0.02", want: "dynamodb:throttle=10%;dynamodb:timeout-after=2%"},
		{name: "operation", in: "sqs/SendMessage:throttle=100%", want: "sqs/SendMessage:throttle=100%"},
		{name: "latency", in: "ses:latency=200ms@50%;cognito:latency=1s", want: "ses:latency=200ms@50%;cognito:latency=1s@100%"},
		{name: "unknown service", in: "s3:throttle=1%", wantErr: true},
		{name: "unknown fault", in: "dynamodb:explode=1%", wantErr: true},
		{name: "rate over 100%", in: "dynamodb:throttle=150%", wantErr: true},
		{name: "no rate", in: "dynamodb:throttle", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error = %v; want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && spec.String() != tt.want {
				t.Errorf("Parse(%q) = %q; want %q", tt.in, spec.String(), tt.want)
			}
		})
	}
}

// engine is a stand-in for an engine that answers every call with an empty JSON object and counts
// the calls that reached it.
type engine struct {
	srv   *httptest.Server
	calls atomic.Int32
}

func newEngine(t *testing.T) *engine {
	e := &engine{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func startInjector(t *testing.T, e *engine, spec string) *Injector {
	t.Helper()
	s, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	inj, err := Start(map[string]string{"dynamodb": e.srv.URL, "sqs": e.srv.URL}, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inj.Close() })
	return inj
}

func dynamoDB(endpoint string, timeout time.Duration) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), Retryer: aws.NopRetryer{},
		HTTPClient: &http.Client{Timeout: timeout}})
}

func putItem(c *dynamodb.Client) error {
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("t"),
		Item: map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "a"}}})
	return err
}

func TestDynamoDBErrorsAsTheSDKTypes(t *testing.T) {
	tests := []struct {
		spec string
		is   func(error) bool
	}{
		{"dynamodb:throttle=100%", func(err error) bool {
			var e *ddbtypes.ProvisionedThroughputExceededException
			return errors.As(err, &e)
		}},
		{"dynamodb:throttling=100%", func(err error) bool {
			var e smithy.APIError
			return errors.As(err, &e) && e.ErrorCode() == "ThrottlingException"
		}},
		{"dynamodb/PutItem:error500=100%", func(err error) bool {
			var e *ddbtypes.InternalServerError
			return errors.As(err, &e)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			e := newEngine(t)
			inj := startInjector(t, e, tt.spec)
			err := putItem(dynamoDB(inj.URL("dynamodb"), 5*time.Second))
			if !tt.is(err) {
				t.Errorf("PutItem through %q = %v (%T); want the SDK's error of that fault", tt.spec, err, err)
			}
			if n := e.calls.Load(); n != 0 {
				t.Errorf("the engine got %d calls; want 0 (an error answer applies nothing)", n)
			}
		})
	}
}

func TestOtherOperationsPassThrough(t *testing.T) {
	e := newEngine(t)
	inj := startInjector(t, e, "dynamodb/GetItem:throttle=100%")
	if err := putItem(dynamoDB(inj.URL("dynamodb"), 5*time.Second)); err != nil {
		t.Fatalf("PutItem with GetItem throttled = %v; want nil", err)
	}
	if n := e.calls.Load(); n != 1 {
		t.Errorf("the engine got %d calls; want 1", n)
	}
}

func TestTimeoutAfterAppliesAndLosesTheAnswer(t *testing.T) {
	e := newEngine(t)
	inj := startInjector(t, e, "dynamodb:timeout-after=100%")
	err := putItem(dynamoDB(inj.URL("dynamodb"), 300*time.Millisecond))
	if err == nil {
		t.Fatal("PutItem with timeout-after = nil; want a timeout")
	}
	if n := e.calls.Load(); n != 1 {
		t.Errorf("the engine got %d calls; want 1 (applied, then the answer lost)", n)
	}
	if got := inj.Injected()["dynamodb/PutItem/timeout-after"]; got != 1 {
		t.Errorf("Injected()[dynamodb/PutItem/timeout-after] = %d; want 1", got)
	}
}

func TestResetAppliesNothing(t *testing.T) {
	e := newEngine(t)
	inj := startInjector(t, e, "dynamodb:reset=100%")
	if err := putItem(dynamoDB(inj.URL("dynamodb"), 5*time.Second)); err == nil {
		t.Fatal("PutItem with reset = nil; want a connection error")
	}
	if n := e.calls.Load(); n != 0 {
		t.Errorf("the engine got %d calls; want 0", n)
	}
}

func sqsClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), Retryer: aws.NopRetryer{}})
}

func TestSQSFaults(t *testing.T) {
	e := newEngine(t)
	inj := startInjector(t, e, "sqs/SendMessage:throttle=100%;sqs:lose-delete=100%")
	c := sqsClient(inj.URL("sqs"))
	ctx := context.Background()
	_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(e.srv.URL + "/q"), MessageBody: aws.String("m")})
	var throttled *sqstypes.RequestThrottled
	if !errors.As(err, &throttled) {
		t.Errorf("SendMessage throttled = %v (%T); want *types.RequestThrottled", err, err)
	}
	out, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(e.srv.URL + "/q"),
		Entries: []sqstypes.DeleteMessageBatchRequestEntry{{Id: aws.String("0"), ReceiptHandle: aws.String("h")}}})
	if err != nil || len(out.Successful) != 1 || aws.ToString(out.Successful[0].Id) != "0" {
		t.Errorf("DeleteMessageBatch with lose-delete = %+v, %v; want entry 0 acknowledged", out, err)
	}
	if n := e.calls.Load(); n != 0 {
		t.Errorf("the engine got %d calls; want 0 (the delete was lost)", n)
	}
}

func TestControlEndpoint(t *testing.T) {
	e := newEngine(t)
	inj := startInjector(t, e, "")
	ctx := context.Background()
	st, err := SetRemote(ctx, inj.ControlURL(), "dynamodb:throttle=100%")
	if err != nil || st.Spec != "dynamodb:throttle=100%" {
		t.Fatalf("SetRemote = %+v, %v; want the spec in force", st, err)
	}
	var pe *ddbtypes.ProvisionedThroughputExceededException
	if err := putItem(dynamoDB(inj.URL("dynamodb"), 5*time.Second)); !errors.As(err, &pe) {
		t.Errorf("PutItem after SetRemote = %v; want throttled", err)
	}
	if _, err := SetRemote(ctx, inj.ControlURL(), "off"); err != nil {
		t.Fatal(err)
	}
	if err := putItem(dynamoDB(inj.URL("dynamodb"), 5*time.Second)); err != nil {
		t.Errorf("PutItem after faults off = %v; want nil", err)
	}
	st, err = GetRemote(ctx, inj.ControlURL())
	if err != nil || st.Injected["dynamodb/PutItem/throttle"] != 1 {
		t.Errorf("GetRemote = %+v, %v; want one throttle injected", st, err)
	}
}
