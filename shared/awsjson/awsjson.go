// Package awsjson calls the few operations Patio needs of AWS services that speak JSON (the AWS
// JSON 1.0 and 1.1 and REST-JSON protocols), without their SDK clients.
//
// Why not the SDK's clients: a binary that uses html/template (the console) keeps every exported
// method of every type it links, because text/template looks methods up by name at run time; the
// linker then keeps every operation of every SDK client the binary links, used or not. The
// Cognito user pool client alone weighs 4.1 MB there and SES v2's 2.4 MB, for five and two
// operations; SQS's, in every function that queues deliveries, 0.5 MB for one. This package is what
// those clients do for one operation, on the SDK's own parts:
// the configuration (region, credentials, HTTP client, the endpoint variables), the SigV4 signer,
// the standard retryer's judgement of which errors to retry, and the operation middleware of
// aws.Config.APIOptions (the X-Ray subsegment of package xray).
package awsjson

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/restjson"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Service is an AWS service as its SDK client knows it.
type Service struct {
	// ID is the SDK's service id ("Cognito Identity Provider", "SESv2"): AWS_ENDPOINT_URL_<ID>,
	// upper-cased with spaces as underscores, overrides its endpoint.
	ID string
	// SigningName is the service's name in SigV4 signatures ("cognito-idp", "ses").
	SigningName string
	// EndpointPrefix names its regional endpoint, https://<prefix>.<region>.amazonaws.com.
	EndpointPrefix string
	// TargetPrefix is set for an AWS JSON service: every operation is a POST to / with the
	// header X-Amz-Target: <TargetPrefix>.<operation>. Empty for a REST-JSON service.
	TargetPrefix string
	// JSONVersion is an AWS JSON service's protocol version, "1.0" (SQS) or "1.1" (Cognito, the
	// default when empty): its Content-Type, application/x-amz-json-<version>.
	JSONVersion string
}

// Operation is one operation of a Service.
type Operation struct {
	// Name is the operation's name ("AdminCreateUser", "SendEmail").
	Name string
	// Method and Path are a REST-JSON operation's HTTP binding ("POST", "/v2/email/outbound-emails");
	// empty for AWS JSON.
	Method, Path string
	// Anonymous operations are sent unsigned, as the SDK sends them (Cognito's InitiateAuth, whose
	// caller proves who it is with a password).
	Anonymous bool
}

// Client calls one service. It is safe for concurrent use.
type Client struct {
	service    Service
	endpoint   string
	region     string
	creds      aws.CredentialsProvider
	http       aws.HTTPClient
	signer     *v4.Signer
	retryer    aws.Retryer
	apiOptions []func(*middleware.Stack) error
}

// New returns a client of s on cfg: its region, credentials, HTTP client (with its timeouts) and
// APIOptions, and the endpoint the SDK's client would use (Endpoint).
func New(cfg aws.Config, s Service) *Client {
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = awshttp.NewBuildableClient()
	}
	return &Client{service: s, endpoint: Endpoint(cfg, s), region: cfg.Region, creds: cfg.Credentials,
		http: httpClient, signer: v4.NewSigner(), retryer: newRetryer(), apiOptions: cfg.APIOptions}
}

// newRetryer bounds a call as the store bounds its DynamoDB calls (dynamostore.ClientOptions): at
// most 3 attempts, backing off at most 200 ms, so that an unreachable service turns into a prompt
// error rather than a hung request. No client-side retry quota: every call retries alike.
func newRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.MaxBackoff = 200 * time.Millisecond
	})
}

// Endpoint returns the base URL of s for cfg, found as the SDK's clients find it: the service's
// own endpoint variable (AWS_ENDPOINT_URL_<ID>, through cfg.ConfigSources, unless
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is set), else cfg.BaseEndpoint (AWS_ENDPOINT_URL), else the
// service's regional endpoint.
func Endpoint(cfg aws.Config, s Service) string {
	if v, ok := ConfiguredEndpoint(cfg, s.ID); ok {
		return v
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(cfg.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://" + s.EndpointPrefix + "." + cfg.Region + "." + suffix
}

// ConfiguredEndpoint returns the endpoint cfg sets for the service whose SDK id is serviceID
// (AWS_ENDPOINT_URL_<ID> through cfg.ConfigSources, else AWS_ENDPOINT_URL), false when it sets
// none and the service's own address applies: what a caller addressing the service its own way
// (S3's virtual-hosted buckets) needs of Endpoint.
func ConfiguredEndpoint(cfg aws.Config, serviceID string) (string, bool) {
	if v, ok := configuredEndpoint(cfg.ConfigSources, serviceID); ok {
		return v, true
	}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		return *cfg.BaseEndpoint, true
	}
	return "", false
}

// configuredEndpoint is the SDK's lookup of a service's endpoint in its configuration sources
// (internal/configsources.ResolveServiceBaseEndpoint, which only the SDK's packages may import).
func configuredEndpoint(sources []any, serviceID string) (string, bool) {
	for _, src := range sources { // the first source that sets AWS_IGNORE_CONFIGURED_ENDPOINT_URLS decides
		if p, ok := src.(interface {
			GetIgnoreConfiguredEndpoints(context.Context) (bool, bool, error)
		}); ok {
			if ignore, found, _ := p.GetIgnoreConfiguredEndpoints(context.Background()); found {
				if ignore {
					return "", false
				}
				break
			}
		}
	}
	for _, src := range sources {
		if p, ok := src.(interface {
			GetServiceBaseEndpoint(context.Context, string) (string, bool, error)
		}); ok {
			if v, found, err := p.GetServiceBaseEndpoint(context.Background(), serviceID); err == nil && found {
				return v, true
			}
		}
	}
	return "", false
}

// Call runs op with in as its JSON body and decodes the answer into out (nil: dropped). A refusal
// of the service is a smithy.APIError (Code tells which: "UsernameExistsException"), inside the
// same *smithy.OperationError and *awshttp.ResponseError as the SDK's clients return; failures
// the standard retryer deems transient (throttling, 5xx, a broken connection) are retried first.
func (c *Client) Call(ctx context.Context, op Operation, in, out any) error {
	if err := c.call(ctx, op, in, out); err != nil {
		return &smithy.OperationError{ServiceID: c.service.ID, OperationName: op.Name, Err: err}
	}
	return nil
}

func (c *Client) call(ctx context.Context, op Operation, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	stack, err := c.stack(op.Name)
	if err != nil {
		return err
	}
	// What the middleware reads of the call, as the SDK's clients set it.
	ctx = awsmiddleware.SetServiceID(ctx, c.service.ID)
	ctx = awsmiddleware.SetOperationName(ctx, op.Name)
	ctx = awsmiddleware.SetRegion(ctx, c.region)
	send := middleware.HandlerFunc(func(ctx context.Context, _ any) (any, middleware.Metadata, error) {
		res, md, err := c.send(ctx, op, body, out)
		if res == nil {
			return nil, md, err // no typed nil: the raw response's readers type-assert it
		}
		return res, md, err
	})
	_, _, err = middleware.DecorateHandler(send, stack).Handle(ctx, in)
	return err
}

// stack is the operation's middleware stack: what cfg.APIOptions add to it (their Initialize
// steps wrap the call, retries included; a call has no SDK request for later steps to act on),
// and the raw response recorded in the call's metadata, where the SDK's clients record it.
func (c *Client) stack(name string) (*middleware.Stack, error) {
	stack := middleware.NewStack(name, smithyhttp.NewStackRequest)
	if err := awsmiddleware.AddRawResponseToMetadata(stack); err != nil {
		return nil, err
	}
	for _, add := range c.apiOptions {
		if err := add(stack); err != nil {
			return nil, err
		}
	}
	return stack, nil
}

// send makes the attempts of one call and returns the last one's response.
func (c *Client) send(ctx context.Context, op Operation, body []byte, out any) (*smithyhttp.Response, middleware.Metadata, error) {
	var md middleware.Metadata
	for attempt := 1; ; attempt++ {
		res, requestID, err := c.attempt(ctx, op, body, out)
		if requestID != "" {
			awsmiddleware.SetRequestIDMetadata(&md, requestID)
		}
		if err == nil || attempt >= c.retryer.MaxAttempts() || !c.retryer.IsErrorRetryable(err) {
			return res, md, err
		}
		delay, derr := c.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return res, md, err
		}
		select {
		case <-ctx.Done():
			return res, md, err
		case <-time.After(delay):
		}
	}
}

// maxResponseBytes bounds what is read of an answer: these operations answer a few hundred bytes.
const maxResponseBytes = 1 << 20

// attempt sends the call once: signed unless anonymous, the answer decoded into out or turned
// into the service's error.
func (c *Client) attempt(ctx context.Context, op Operation, body []byte, out any) (*smithyhttp.Response, string, error) {
	req, err := c.request(ctx, op, body)
	if err != nil {
		return nil, "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", &smithy.CanceledError{Err: err}
		}
		return nil, "", &smithyhttp.RequestSendError{Err: err}
	}
	defer resp.Body.Close()
	raw := &smithyhttp.Response{Response: resp}
	requestID := resp.Header.Get("X-Amzn-Requestid")
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return raw, requestID, &smithy.DeserializationError{Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return raw, requestID, responseError(raw, requestID, data)
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return raw, requestID, &smithy.DeserializationError{Err: fmt.Errorf("%s answer: %w", op.Name, err)}
		}
	}
	return raw, requestID, nil
}

// request builds one attempt's HTTP request.
func (c *Client) request(ctx context.Context, op Operation, body []byte) (*http.Request, error) {
	method, path, contentType := op.Method, op.Path, "application/json"
	if c.service.TargetPrefix != "" {
		version := c.service.JSONVersion
		if version == "" {
			version = "1.1"
		}
		method, path, contentType = http.MethodPost, "/", "application/x-amz-json-"+version
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.endpoint, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.service.TargetPrefix != "" {
		req.Header.Set("X-Amz-Target", c.service.TargetPrefix+"."+op.Name)
	}
	if op.Anonymous {
		return req, nil
	}
	if c.creds == nil {
		return nil, errors.New("no AWS credentials to sign with")
	}
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve AWS credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), c.service.SigningName, c.region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return req, nil
}

// responseError is the service's refusal as the SDK's clients report it: the error code from the
// X-Amzn-ErrorType header or the body's __type (or code), and its message.
func responseError(raw *smithyhttp.Response, requestID string, body []byte) error {
	code, message, _ := restjson.GetErrorInfo(json.NewDecoder(bytes.NewReader(body)))
	if h := raw.Header.Get("X-Amzn-ErrorType"); h != "" && code == "" {
		code = h
	}
	code = restjson.SanitizeErrorCode(code) // "com.amazonaws.sqs#QueueDoesNotExist" → "QueueDoesNotExist"
	if code == "" {
		code = "UnknownError"
	}
	fault := smithy.FaultClient
	if raw.StatusCode >= 500 {
		fault = smithy.FaultServer
	}
	return &awshttp.ResponseError{RequestID: requestID, ResponseError: &smithyhttp.ResponseError{Response: raw,
		Err: &smithy.GenericAPIError{Code: code, Message: message, Fault: fault}}}
}

// Code returns the service's error code of err ("UsernameExistsException"), or "" when err is not
// a refusal of the service.
func Code(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}
