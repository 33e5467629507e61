package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// sdkCall is one DynamoDB API call seen on the wire.
type sdkCall struct {
	op             string // GetItem, Query, TransactWriteItems...
	sent, received int    // request and response body bytes
	body           string // request body (JSON)
	// scanned is the items a Query or Scan examined (its ScannedCount), -1 for other operations;
	// items the items a transaction or batch names (0 for other operations).
	scanned, items int
	// units is the capacity DynamoDB Local reported for the call (ReturnConsumedCapacity TOTAL,
	// which the recorder asks for on every call), summed over its tables and indexes.
	units      float64
	start, end time.Time // when the call was sent and its answer read
}

// trace is what one recorded request did: its DynamoDB calls, and when it started and ended.
type trace struct {
	calls      []sdkCall
	start, end time.Time
}

// recorder is the AWS SDK's HTTP client that, while recording, keeps every call (recording
// reads whole bodies, so it is on only around single sample requests).
type recorder struct {
	inner     *awshttp.BuildableClient
	recording atomic.Bool
	mu        sync.Mutex
	calls     []sdkCall
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
	r := &recorder{inner: inner}
	cfg = cfg.Copy()
	cfg.HTTPClient = r
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), askCapacity)
	return r, cfg
}

// Do implements aws.HTTPClient.
func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	recording := r.recording.Load()
	c := sdkCall{op: op, scanned: -1, start: time.Now()}
	if recording && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		c.sent, c.body = len(body), string(body)
		c.items = requestItems(op, body)
	}
	resp, err := r.inner.Do(req)
	if !recording {
		return resp, err
	}
	if resp != nil && resp.Body != nil {
		data, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		c.received, err = len(data), cmp.Or(err, rerr)
		var out struct {
			ScannedCount     *int
			ConsumedCapacity json.RawMessage
		}
		if json.Unmarshal(data, &out) == nil {
			if out.ScannedCount != nil {
				c.scanned = *out.ScannedCount
			}
			c.units = capacityUnits(out.ConsumedCapacity)
		}
	}
	c.end = time.Now()
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return resp, err
}

// record runs f with recording on and returns the calls it made. Nothing else may call DynamoDB
// meanwhile.
func (r *recorder) record(f func() error) ([]sdkCall, error) {
	t, err := r.trace(f)
	return t.calls, err
}

// trace runs f with recording on and returns its trace. Nothing else may call DynamoDB meanwhile.
func (r *recorder) trace(f func() error) (trace, error) {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
	r.recording.Store(true)
	t := trace{start: time.Now()}
	err := f()
	t.end = time.Now()
	r.recording.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	t.calls = r.calls
	return t, err
}

// capacityUnits sums the CapacityUnits of a response's ConsumedCapacity: one object, or one per
// table (transactions and batches).
func capacityUnits(raw json.RawMessage) float64 {
	type consumed struct{ CapacityUnits float64 }
	var one consumed
	if json.Unmarshal(raw, &one) == nil {
		return one.CapacityUnits
	}
	var many []consumed
	_ = json.Unmarshal(raw, &many)
	total := 0.0
	for _, c := range many {
		total += c.CapacityUnits
	}
	return total
}

// askCapacity is an SDK option that sets ReturnConsumedCapacity TOTAL on every DynamoDB call that
// takes it, so that the recorder reads each call's units from its answer.
func askCapacity(st *middleware.Stack) error {
	return st.Initialize.Add(middleware.InitializeMiddlewareFunc("benchCapacity", func(ctx context.Context,
		in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if v := reflect.ValueOf(in.Parameters); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			if f := v.Elem().FieldByName("ReturnConsumedCapacity"); f.IsValid() && f.CanSet() {
				f.Set(reflect.ValueOf(types.ReturnConsumedCapacityTotal))
			}
		}
		return next.HandleInitialize(ctx, in)
	}), middleware.Before)
}

// requestItems is how many items a transaction or batch request names (0 for other operations).
func requestItems(op string, body []byte) int {
	var in struct {
		TransactItems []json.RawMessage
		RequestItems  map[string]json.RawMessage
	}
	if json.Unmarshal(body, &in) != nil {
		return 0
	}
	switch op {
	case "TransactWriteItems", "TransactGetItems":
		return len(in.TransactItems)
	case "BatchWriteItem":
		n := 0
		for _, reqs := range in.RequestItems {
			var list []json.RawMessage
			_ = json.Unmarshal(reqs, &list)
			n += len(list)
		}
		return n
	case "BatchGetItem":
		n := 0
		for _, reqs := range in.RequestItems {
			var keys struct{ Keys []json.RawMessage }
			_ = json.Unmarshal(reqs, &keys)
			n += len(keys.Keys)
		}
		return n
	}
	return 0
}
