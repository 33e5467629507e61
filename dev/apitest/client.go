// Package apitest is the HTTP client of the integration and end-to-end tests. Every response it
// receives is validated against openapi.yaml, so the document cannot drift from the code.
package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Client calls the API with one key.
type Client struct {
	T       testing.TB
	BaseURL string // e.g. http://127.0.0.1:3000
	Key     string // sent as "Authorization: Bearer <Key>" when not empty
	HTTP    *http.Client
}

// Envelope is the response envelope of every answer of the API (openapi.yaml).
type Envelope struct {
	Success    bool            `json:"success"`
	Data       json.RawMessage `json:"data"`
	Pagination *struct {
		Page       int     `json:"page"`
		Limit      int     `json:"limit"`
		Total      int     `json:"total"`
		Pages      int     `json:"pages"`
		NextCursor *string `json:"next_cursor"`
	} `json:"pagination"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Field   string `json:"field"`
			In      string `json:"in"`
			Message string `json:"message"`
		} `json:"details"`
	} `json:"error"`
}

// Response is a received response, its body and its decoded envelope.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Envelope
}

// Decode unmarshals the envelope's data into v, failing the test on error.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decode data %s: %v", r.Data, err)
	}
}

// ErrorCode returns the envelope's error code, or "".
func (r *Response) ErrorCode() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// Do sends a request (body marshalled to JSON unless it is a string or []byte, sent as is) and
// returns the response after validating it against openapi.yaml. It is safe for concurrent use.
func (c *Client) Do(method, path string, body any) *Response {
	c.T.Helper()
	return c.DoWith(method, path, body, nil)
}

// DoWith is Do with extra request headers (If-Match, Idempotency-Key, ...).
func (c *Client) DoWith(method, path string, body any, header http.Header) *Response {
	c.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.T.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.BaseURL+path, rd)
	if err != nil {
		c.T.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	for k, v := range header {
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	return c.Send(req)
}

// Send sends a prepared request and validates the response.
func (c *Client) Send(req *http.Request) *Response {
	c.T.Helper()
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		c.T.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: data}
	if res.StatusCode == http.StatusNotModified {
		if len(data) != 0 {
			c.T.Errorf("%s %s: 304 with a body: %s", req.Method, req.URL.Path, data)
		}
	} else if err := json.Unmarshal(data, &out.Envelope); err != nil {
		c.T.Errorf("%s %s: body is not the envelope: %v: %s", req.Method, req.URL.Path, err, data)
	}
	if res.Header.Get("X-Request-Id") == "" {
		c.T.Errorf("%s %s: no X-Request-Id header", req.Method, req.URL.Path)
	}
	validate(c.T, req, res, data)
	return out
}

// With returns a copy of the client that reports to t (for subtests).
func (c *Client) With(t testing.TB) *Client {
	cp := *c
	cp.T = t
	return &cp
}
