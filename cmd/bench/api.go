package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// apiClient is the load client: plain HTTP/1.1 with keep-alive, enough idle connections per host
// for every worker to keep its own (http.Transport keeps only 2 by default, which would make most
// requests of a 16-worker run open a new TCP connection), and a count of the connections it opens
// so the report can show that they were reused.
type apiClient struct {
	base  string
	http  *http.Client
	dials atomic.Int64
}

func newAPIClient(base string) *apiClient {
	c := &apiClient{base: base}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	c.http = &http.Client{
		// Generous: at 16 workers a list of 10,000 vehicles can take tens of seconds on DynamoDB
		// Local, and a timed-out call would be dropped from the measurement.
		Timeout: 10 * time.Minute,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c.dials.Add(1)
				return dialer.DialContext(ctx, network, addr)
			},
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
	return c
}

// statusError is an unexpected answer of the API.
type statusError struct {
	method, path string
	status       int
	body         string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %s", e.method, e.path, e.status, e.body)
}

// do sends one request as p and checks the status. When out is not nil the envelope's data is
// decoded into it; otherwise the body is read and discarded, so the connection goes back to the
// pool.
func (c *apiClient) do(ctx context.Context, p principal, method, path string, body []byte, want int, out any) error {
	return c.doWith(ctx, p, method, path, body, nil, want, out)
}

// doWith is do with extra request headers.
func (c *apiClient) doWith(ctx context.Context, p principal, method, path string, body []byte, header http.Header,
	want int, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, resp.Body)
		return &statusError{method: method, path: path, status: resp.StatusCode, body: string(data)}
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return json.Unmarshal(env.Data, out)
}

// header sends one GET as p and returns the response's header when the status is 200.
func (c *apiClient) header(ctx context.Context, p principal, path string) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{method: http.MethodGet, path: path, status: resp.StatusCode, body: string(data)}
	}
	return resp.Header, nil
}

// status sends one request as p and returns the status alone.
func (c *apiClient) status(ctx context.Context, p principal, method, path string) (int, error) {
	err := c.do(ctx, p, method, path, nil, http.StatusOK, nil)
	if se, ok := err.(*statusError); ok {
		return se.status, nil
	}
	if err != nil {
		return 0, err
	}
	return http.StatusOK, nil
}
