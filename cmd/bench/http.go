package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"time"
)

// apiClient is the load client: HTTP/1.1 with keep-alive.
type apiClient struct {
	base string
	http *http.Client
}

// newAPIClient returns a load client of the API served at base.
func newAPIClient(base string) *apiClient {
	return &apiClient{base: base, http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// do sends one request as p and checks its status.
func (c *apiClient) do(ctx context.Context, p principal, method, path string, body []byte, want int) error {
	_, _, err := c.send(ctx, p, method, path, body, nil, want, false)
	return err
}

// send sends one request as p, with header's headers too, and checks its status; it returns the
// answer's header and, with keep, its body.
func (c *apiClient) send(ctx context.Context, p principal, method, path string, body []byte, header http.Header, want int,
	keep bool) (http.Header, []byte, error) {
	_, h, data, err := fetch(ctx, c.http, method, c.base+path, body, authorized(p.secret, header), want, keep)
	return h, data, err
}

// authorized returns header with the Authorization of secret.
func authorized(secret string, header http.Header) http.Header {
	h := http.Header{"Authorization": {"Bearer " + secret}}
	maps.Copy(h, header)
	return h
}

// fetch sends one request with header (and a JSON Content-Type with a body) and checks its status
// unless want is 0; it returns the answer's status, header and, with keep, body (otherwise read
// and discarded, so that the connection goes back to the pool).
func fetch(ctx context.Context, client *http.Client, method, url string, body []byte, header http.Header, want int,
	keep bool) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	maps.Copy(req.Header, header)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	var data []byte
	switch {
	case want != 0 && resp.StatusCode != want:
		data, _ = io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil, nil, fmt.Errorf("%s %s: status %d: %s", method, req.URL.RequestURI(), resp.StatusCode, data)
	case keep:
		data, err = io.ReadAll(resp.Body)
	default:
		_, err = io.Copy(io.Discard, resp.Body)
	}
	return resp.StatusCode, resp.Header, data, err
}
