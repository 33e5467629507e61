package patio

import (
	"errors"
	"fmt"
	"sort"
)

// Where a problem of a request is: the parts of an HTTP request a client can get wrong.
const (
	InBody   = "body"
	InQuery  = "query"
	InHeader = "header"
	InPath   = "path"
)

// FieldError is one problem with one member of a request: the member's name (a dotted path for
// nested members, "address.zip_code"), where it was sent (InBody, InQuery, ...) and a readable
// sentence that names it.
type FieldError struct {
	Field   string `json:"field"`
	In      string `json:"in"`
	Message string `json:"message"`
	// Code and Args name the message and what it was formatted with (see Error.Code).
	Code string `json:"-"`
	Args []any  `json:"-"`
}

// Problems collects the problems of one request, so that a 400 lists all of them rather than the
// first. The zero value is empty and ready to use.
type Problems struct {
	list []FieldError
}

// Add records a problem of the member field sent in in; the message is formatted, and its code is
// format's (see Messages).
func (p *Problems) Add(in, field, format string, args ...any) {
	p.list = append(p.list, FieldError{Field: field, In: in, Message: fmt.Sprintf(format, args...), Code: CodeOf(format), Args: args})
}

// AddError records err: the details of a KindInvalid *Error, or err's message for member field.
func (p *Problems) AddError(in, field string, err error) {
	var e *Error
	if errors.As(err, &e) && len(e.Details) > 0 {
		p.list = append(p.list, e.Details...)
		return
	}
	fe := FieldError{Field: field, In: in, Message: err.Error()}
	if e != nil {
		fe.Message, fe.Code, fe.Args = e.Message, e.Code, e.Args
	}
	p.list = append(p.list, fe)
}

// AddOthers records err's problems, as AddError does, but those of a member that has a problem
// recorded already: a member an edge could not read (a form's amount typed "abc") is not refused
// a second time for the value that stood in for it (not also "must be above zero").
func (p *Problems) AddOthers(in string, err error) {
	var e *Error
	if !errors.As(err, &e) || len(e.Details) == 0 {
		p.AddError(in, "", err)
		return
	}
	had := map[string]bool{}
	for _, fe := range p.list {
		had[fe.Field] = true
	}
	for _, d := range e.Details {
		if d.Field == "" || !had[d.Field] {
			p.list = append(p.list, d)
		}
	}
}

// Has reports whether a problem of member field was recorded.
func (p *Problems) Has(field string) bool {
	for _, e := range p.list {
		if e.Field == field {
			return true
		}
	}
	return false
}

// Len returns the number of problems recorded.
func (p *Problems) Len() int { return len(p.list) }

// Err returns nil without problems, else a KindInvalid *Error listing them all, ordered by where
// they were sent (path, header, query, body) and then as they were found; the message names the
// first.
func (p *Problems) Err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := append([]FieldError(nil), p.list...)
	order := map[string]int{InPath: 0, InHeader: 1, InQuery: 2, InBody: 3}
	sort.SliceStable(list, func(i, j int) bool {
		return order[list[i].In] < order[list[j].In]
	})
	return &Error{Kind: KindInvalid, Message: list[0].Message, Details: list, Code: list[0].Code, Args: list[0].Args}
}

// invalid returns a KindInvalid error for one member of a body.
func invalid(field, format string, args ...any) error {
	var p Problems
	p.Add(InBody, field, format, args...)
	return p.Err()
}
