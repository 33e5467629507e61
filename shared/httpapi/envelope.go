package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/patio-dev/patio/shared/patio"
)

// errorBody is the error member of the envelope.
type errorBody struct {
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Details []patio.FieldError `json:"details,omitempty"`
}

type envelope struct {
	Success    bool        `json:"success"`
	Data       any         `json:"data,omitempty"`
	Pagination *pagination `json:"pagination,omitempty"`
	Error      *errorBody  `json:"error,omitempty"`
}

type pagination struct {
	Page       int     `json:"page"`
	Limit      int     `json:"limit"`
	Total      int     `json:"total"`
	Pages      int     `json:"pages"`
	NextCursor *string `json:"next_cursor"`
}

// internalMessage is all a client learns of an unexpected error, unavailableMessage of a service
// throttling or failing.
const (
	internalMessage    = "an internal error occurred; retry later and quote the X-Request-Id if it persists"
	unavailableMessage = "the service is briefly unavailable; retry after the seconds Retry-After gives"
)

// status returns the HTTP status and error code of a kind: the one place that maps them.
func status(kind patio.Kind) (int, string) {
	switch kind {
	case patio.KindInvalid:
		return http.StatusBadRequest, "VALIDATION_ERROR"
	case patio.KindConflict:
		return http.StatusUnprocessableEntity, "VALIDATION_ERROR"
	case patio.KindDuplicate:
		return http.StatusUnprocessableEntity, "DUPLICATE_ENTRY"
	case patio.KindNotFound:
		return http.StatusNotFound, "NOT_FOUND"
	case patio.KindUnauthenticated:
		return http.StatusUnauthorized, "UNAUTHORIZED"
	case patio.KindForbidden:
		return http.StatusForbidden, "FORBIDDEN"
	case patio.KindRateLimited:
		return http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED"
	case patio.KindPrecondition:
		return http.StatusPreconditionFailed, "PRECONDITION_FAILED"
	case patio.KindUnavailable:
		return http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE"
	default:
		return http.StatusInternalServerError, "INTERNAL_ERROR"
	}
}

func writeJSON(w http.ResponseWriter, code int, body envelope) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// writeData answers a single object.
func writeData(w http.ResponseWriter, code int, data any) {
	writeJSON(w, code, envelope{Success: true, Data: data})
}

// writeList answers a page of a list.
// values are the list's query parameters, which its next cursor belongs to.
func writeList[T any](w http.ResponseWriter, page patio.Page[T], values url.Values) {
	items := page.Items
	if items == nil {
		items = []T{}
	}
	q := page.List
	pg := &pagination{Page: q.Page.Value, Limit: q.Limit.Value, Total: page.Total, Pages: q.Pages(page.Total)}
	if page.Next != "" {
		next := cursor{Page: q.Page.Value + 1, After: page.Next, Query: queryFingerprint(values)}.encode()
		pg.NextCursor = &next
	}
	if ix := page.Index; ix != nil && !ix.Through.IsZero() {
		w.Header().Set("Patio-Index-Through", ix.Through.UTC().Format("2006-01-02T15:04:05.000Z"))
		w.Header().Set("Patio-Index-Lag", strconv.FormatFloat(max(ix.Lag, 0).Seconds(), 'f', 3, 64))
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: items, Pagination: pg})
}

// unavailableRetryAfter is the Retry-After of a 503: a throttled or failing database usually
// recovers within seconds, and clients that wait this long spread their retries past the burst.
const unavailableRetryAfter = "2"

// writeError answers err in the envelope. Internal errors are logged here, once, with the whole
// chain and the request id; the client gets a generic message. An unavailable service is logged
// as a warning (the alarms count them) and answered 503 with Retry-After.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind := patio.KindOf(err)
	code, name := status(kind)
	msg := internalMessage
	var details []patio.FieldError
	var pe *patio.Error
	if kind == patio.KindUnavailable {
		msg = unavailableMessage
		w.Header().Set("Retry-After", unavailableRetryAfter)
		a.log.WarnContext(r.Context(), "dependency unavailable", slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	} else if kind != patio.KindInternal && errors.As(err, &pe) {
		msg, details = pe.Message, pe.Details
	} else {
		a.log.ErrorContext(r.Context(), "request failed", slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	writeJSON(w, code, envelope{Success: false, Error: &errorBody{Code: name, Message: msg, Details: details}})
}
