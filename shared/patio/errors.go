// Package patio is the domain of the Patio dealership API: vehicles, clients, deals, teams and API
// keys, their validation and business rules, and the single error type every layer reports with.
//
// It imports only the standard library and small pure libraries. Storage and transport live in the
// adapters (shared/dynamostore, shared/httpapi), which convert to and from these types.
package patio

import (
	"errors"
	"fmt"
)

// Kind classifies an Error. Each kind maps to exactly one HTTP status and error code, given beside
// it below; the HTTP adapter does that mapping in one place.
type Kind int

// The error kinds.
const (
	// KindInternal is anything unexpected (500 INTERNAL_ERROR). Its message is never shown.
	KindInternal Kind = iota
	// KindInvalid is a request that is wrong on its own (400 VALIDATION_ERROR).
	KindInvalid
	// KindConflict is a well-formed request that conflicts with stored state (422 VALIDATION_ERROR).
	KindConflict
	// KindDuplicate is a duplicate plate, CPF or CNPJ (422 DUPLICATE_ENTRY).
	KindDuplicate
	// KindNotFound is an unknown route or record, or another team's record (404 NOT_FOUND).
	KindNotFound
	// KindUnauthenticated is a missing, malformed, unknown or revoked key (401 UNAUTHORIZED).
	KindUnauthenticated
	// KindForbidden is a key without the scope for the operation (403 FORBIDDEN).
	KindForbidden
	// KindRateLimited is a request over the team's plan limit (429 RATE_LIMIT_EXCEEDED).
	KindRateLimited
	// KindPrecondition is an If-Match that does not match the stored record (412
	// PRECONDITION_FAILED): nothing was written.
	KindPrecondition
	// KindUnavailable is a service the request depends on throttling, failing or out of reach
	// (503 SERVICE_UNAVAILABLE, with Retry-After): nothing the client did wrong. A write may or may
	// not have been applied; a POST retried with its Idempotency-Key is answered as the first.
	KindUnavailable
)

// Error is the one error type of the service. Message is safe to show to the API client (except for
// KindInternal, whose message is replaced by a generic one); Err is the underlying cause, for logs.
type Error struct {
	Kind    Kind
	Message string
	Err     error
	// Details lists every problem of a KindInvalid request, field by field (Message names the
	// first); nil for other kinds.
	Details []FieldError
	// Code names the message (see Messages; "" for a message outside the table) and Args are what
	// it was formatted with, so that an adapter speaking another language (the console) can look
	// the code up in its catalog and format the arguments again, never reading the English.
	Code string `json:"-"`
	Args []any  `json:"-"`
}

// Error returns the message followed by the cause, if any.
func (e *Error) Error() string {
	if e.Err != nil {
		if e.Message == "" {
			return e.Err.Error()
		}
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted, client-safe message, and the code of
// format (see Messages).
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Code: CodeOf(format), Args: args}
}

// Invalidf returns a KindInvalid error (400 VALIDATION_ERROR).
func Invalidf(format string, args ...any) *Error { return Errorf(KindInvalid, format, args...) }

// Conflictf returns a KindConflict error (422 VALIDATION_ERROR).
func Conflictf(format string, args ...any) *Error { return Errorf(KindConflict, format, args...) }

// ErrNotFound is the generic not-found error; wrap it to add context.
var ErrNotFound = Errorf(KindNotFound, "resource not found")

// NotFoundf returns a KindNotFound error.
func NotFoundf(format string, args ...any) *Error { return Errorf(KindNotFound, format, args...) }

// Internal wraps an unexpected error as KindInternal, keeping it for logs.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Message: "internal error", Err: err}
}

// Unavailable wraps the failure of a service the request depends on (throttled, failing, out of
// reach) as KindUnavailable, keeping it for logs.
func Unavailable(err error) *Error {
	return &Error{Kind: KindUnavailable, Message: "service unavailable", Err: err}
}

// KindOf returns the kind of err: the Kind of the first *Error in its chain, KindInternal otherwise;
// an internal error whose cause is an unavailable service is KindUnavailable, since that is all
// the client can act on.
func KindOf(err error) Kind {
	var e *Error
	if !errors.As(err, &e) {
		return KindInternal
	}
	if e.Kind == KindInternal && e.Err != nil && KindOf(e.Err) == KindUnavailable {
		return KindUnavailable
	}
	return e.Kind
}

// IsKind reports whether err carries an *Error of the given kind (KindOf's judgement).
func IsKind(err error, kind Kind) bool {
	var e *Error
	return errors.As(err, &e) && KindOf(err) == kind
}
