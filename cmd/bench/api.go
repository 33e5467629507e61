package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// apiClient is the load client: HTTP/1.1 with keep-alive and enough idle connections per host for
// every worker to keep its own (http.Transport keeps 2 by default, which would make most requests
// of 16 workers open a connection), counting the connections it opens so that the report can show
// they were reused.
type apiClient struct {
	base  string
	http  *http.Client
	dials atomic.Int64
}

func newAPIClient(base string) *apiClient {
	c := &apiClient{base: base}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	c.http = &http.Client{
		// Generous: a list of 10,000 vehicles at 16 workers can take tens of seconds on DynamoDB
		// Local, and a timed-out call would be dropped from the measurement.
		Timeout: 10 * time.Minute,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c.dials.Add(1)
				return dialer.DialContext(ctx, network, addr)
			},
			MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second, DisableCompression: true,
		},
	}
	return c
}

// do sends one request as p and checks its status.
func (c *apiClient) do(ctx context.Context, p principal, method, path string, body []byte, want int) error {
	_, _, err := c.send(ctx, p, method, path, body, nil, want, false)
	return err
}

// send sends one request as p, with header's headers too, and checks its status; it returns the
// answer's header and, with keep, its body (otherwise read and discarded, so that the connection
// goes back to the pool).
func (c *apiClient) send(ctx context.Context, p principal, method, path string, body []byte, header http.Header, want int,
	keep bool) (http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
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
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, nil, fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, data)
	}
	if keep {
		data, err := io.ReadAll(resp.Body)
		return resp.Header, data, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.Header, nil, err
}
