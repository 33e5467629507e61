package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMalformedHTTPInEnvelope(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "from-the-api")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"success":false,"error":{"code":"NOT_FOUND","message":"no route"}}`)
	})
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(envelopeListener{ln})
	t.Cleanup(func() { srv.Close() })

	tests := []struct {
		name, request string
		status        int
		requestID     string // "" for any non-empty id
	}{
		{"a bad header byte", "GET /api/v1/vehicles HTTP/1.1\r\nHost: x\r\nX-Bad\x01: y\r\n\r\n", 400, ""},
		{"headers too large", "GET /api/v1/vehicles HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 400, ""},
		{"a malformed request line", "GET\r\n\r\n", 400, ""},
		{"a valid request", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404, "from-the-api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			go io.WriteString(conn, tt.request)
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("read answer: %v", err)
			}
			defer res.Body.Close()
			var env struct {
				Success bool `json:"success"`
				Error   struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			data, _ := io.ReadAll(res.Body)
			if err := json.Unmarshal(data, &env); err != nil || env.Success {
				t.Errorf("body = %s; want the error envelope", data)
			}
			id := res.Header.Get("X-Request-Id")
			if res.StatusCode != tt.status || id == "" || (tt.requestID != "" && id != tt.requestID) ||
				res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("answer = %d, X-Request-Id %q, Content-Type %q; want %d, an id, JSON", res.StatusCode, id,
					res.Header.Get("Content-Type"), tt.status)
			}
			if tt.status == 400 && env.Error.Code != "VALIDATION_ERROR" {
				t.Errorf("code = %s; want VALIDATION_ERROR", env.Error.Code)
			}
		})
	}
}
