package main

import (
	"bytes"
	"encoding/json"
	"net"
	"strconv"

	"github.com/google/uuid"
)

// envelopeListener wraps the local stack's listener so that the answers Go's HTTP server writes by
// itself, before any handler runs, to requests that are not valid HTTP (a bad header byte, headers
// too large, a malformed request line) go out like every other answer: 400 VALIDATION_ERROR in the
// envelope, with an X-Request-Id. On AWS, API Gateway answers these.
type envelopeListener struct{ net.Listener }

// Accept wraps each connection.
func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c}, nil
}

// envelopeConn rewrites the server's own error answers. Every answer starts at a write (the server
// flushes each response, and writes its own errors in one write), and every answer of the API
// carries X-Request-Id: an answer that starts a write without it is the server's own.
type envelopeConn struct{ net.Conn }

func (c *envelopeConn) Write(b []byte) (int, error) {
	if !serverError(b) {
		return c.Conn.Write(b)
	}
	reason := "the request is not valid HTTP"
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 && len(b) > i+4 {
		reason += ": " + string(bytes.TrimSpace(b[i+4:]))
	}
	body, _ := json.Marshal(map[string]any{"success": false, "error": map[string]any{
		"code": "VALIDATION_ERROR", "message": reason,
		"details": []map[string]string{{"field": "", "in": "header", "message": reason}},
	}})
	out := "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nX-Request-Id: " + uuid.NewString() +
		"\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
	if _, err := c.Conn.Write([]byte(out)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// serverError reports a write that starts an error answer (4xx or 5xx) without X-Request-Id.
func serverError(b []byte) bool {
	if len(b) < len("HTTP/1.1 400") || !bytes.HasPrefix(b, []byte("HTTP/1.")) || (b[9] != '4' && b[9] != '5') {
		return false
	}
	head := b
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		head = b[:i]
	}
	return !bytes.Contains(bytes.ToLower(head), []byte("\r\nx-request-id:"))
}
