// Package httplog holds what the HTTP adapters (the API and the console) share to log their
// answers: a ResponseWriter that remembers the status it wrote.
package httplog

import "net/http"

// StatusWriter is an http.ResponseWriter that remembers the status of the answer: the one
// WriteHeader sent, 200 when the body was written first, 0 before either.
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

// WriteHeader sends the status and remembers it (the first one, as net/http keeps).
func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes the body, remembering 200 when no status was sent before.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
