package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// sdkCall is one DynamoDB API call seen on the wire.
type sdkCall struct {
	op             string // GetItem, Query, TransactWriteItems...
	sent, received int    // request and response body bytes
	body           string // request body (JSON)
	// scanned is the items a Query or Scan examined (its ScannedCount), -1 for other operations;
	// items the items a TransactWriteItems writes or checks.
	scanned, items int
}

// recorder is the AWS SDK's HTTP client, counting the TCP connections the SDK opens and the
// transactions it sends and sees fail, and while recording keeping every call (recording reads
// whole bodies, so it is only on around single sample requests, never during measured runs).
type recorder struct {
	inner            *awshttp.BuildableClient
	dials            atomic.Int64
	txSent, txFailed atomic.Int64 // TransactWriteItems calls, and those answered with an error
	recording        atomic.Bool
	mu               sync.Mutex
	calls            []sdkCall
}

// newRecorder returns a recorder in front of cfg's HTTP client, and a copy of cfg that uses it.
func newRecorder(cfg aws.Config) (*recorder, aws.Config) {
	inner := awshttp.NewBuildableClient() // what the SDK uses when the configuration names none
	if cfg.HTTPClient != nil {
		var ok bool
		if inner, ok = cfg.HTTPClient.(*awshttp.BuildableClient); !ok {
			check(fmt.Errorf("unexpected AWS HTTP client %T", cfg.HTTPClient))
		}
	}
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
	cfg = cfg.Copy()
	cfg.HTTPClient = r
	return r, cfg
}

// Do implements aws.HTTPClient.
func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	recording := r.recording.Load()
	c := sdkCall{op: op, scanned: -1}
	if recording && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		c.sent, c.body = len(body), string(body)
		var in struct{ TransactItems []json.RawMessage }
		if op == "TransactWriteItems" && json.Unmarshal(body, &in) == nil {
			c.items = len(in.TransactItems)
		}
	}
	resp, err := r.inner.Do(req)
	if op == "TransactWriteItems" {
		r.txSent.Add(1)
		if err != nil || resp.StatusCode != http.StatusOK {
			r.txFailed.Add(1)
		}
	}
	if !recording {
		return resp, err
	}
	if resp != nil && resp.Body != nil {
		data, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		c.received, err = len(data), cmp.Or(err, rerr)
		var out struct{ ScannedCount int }
		if (op == "Query" || op == "Scan") && json.Unmarshal(data, &out) == nil {
			c.scanned = out.ScannedCount
		}
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return resp, err
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
