package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// sdkCall is one DynamoDB API call seen on the wire.
type sdkCall struct {
	op       string // GetItem, Query, TransactWriteItems...
	sent     int    // request body bytes
	received int    // response body bytes
	body     string // request body (JSON)
	// scanned is the items a Query or Scan examined (its response's ScannedCount, before any
	// filter), -1 for other operations.
	scanned int
	// items is the number of items a TransactWriteItems writes or checks, 0 for other operations.
	items int
}

// transactItems returns how many items a TransactWriteItems request body names.
func transactItems(body []byte) int {
	var in struct{ TransactItems []json.RawMessage }
	if json.Unmarshal(body, &in) != nil {
		return 0
	}
	return len(in.TransactItems)
}

// recorder is the AWS SDK's HTTP client with three instruments: it counts the TCP connections the SDK
// opens (always, at the cost of an atomic add per dial) and the transactions it sends and sees
// cancelled (always, at the cost of a header lookup per call), and while recording is on it keeps
// every call's operation, body, sizes and items examined. Recording reads whole bodies, so it is only switched on around
// single sample requests, never during measured runs.
type recorder struct {
	inner     *awshttp.BuildableClient
	dials     atomic.Int64
	txSent    atomic.Int64 // TransactWriteItems calls
	txFailed  atomic.Int64 // TransactWriteItems calls answered with an error (cancelled, conflicts)
	recording atomic.Bool
	mu        sync.Mutex
	calls     []sdkCall
}

func newRecorder(inner *awshttp.BuildableClient) *recorder {
	r := &recorder{}
	r.inner = inner.WithTransportOptions(func(tr *http.Transport) {
		dial := tr.DialContext
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			r.dials.Add(1)
			return dial(ctx, network, addr)
		}
	})
	return r
}

// Do implements aws.HTTPClient.
func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	if op == "TransactWriteItems" {
		r.txSent.Add(1)
	}
	if !r.recording.Load() {
		resp, err := r.inner.Do(req)
		r.countFailure(op, resp, err)
		return resp, err
	}
	c := sdkCall{op: op, scanned: -1}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		c.sent, c.body = len(body), string(body)
		if op == "TransactWriteItems" {
			c.items = transactItems(body)
		}
	}
	resp, err := r.inner.Do(req)
	r.countFailure(op, resp, err)
	if resp != nil && resp.Body != nil {
		data, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		c.received = len(data)
		if err == nil && rerr != nil {
			err = rerr
		}
		if c.op == "Query" || c.op == "Scan" {
			var out struct{ ScannedCount int }
			if json.Unmarshal(data, &out) == nil {
				c.scanned = out.ScannedCount
			}
		}
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) countFailure(op string, resp *http.Response, err error) {
	if op == "TransactWriteItems" && (err != nil || resp.StatusCode != http.StatusOK) {
		r.txFailed.Add(1)
	}
}

// record runs f with recording on and returns the calls it made. Nothing else may call DynamoDB
// meanwhile.
func (r *recorder) record(f func() error) ([]sdkCall, error) {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
	r.recording.Store(true)
	err := f()
	r.recording.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, err
}
