package patio_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

func TestProblemsErr(t *testing.T) {
	body := func(field string) patio.FieldError {
		return patio.FieldError{Field: field, In: patio.InBody, Message: field + " is wrong"}
	}
	at := func(in, field string) patio.FieldError {
		return patio.FieldError{Field: field, In: in, Message: field + " is wrong"}
	}
	tests := []struct {
		name  string
		added []patio.FieldError
		want  []patio.FieldError // nil: Err returns nil
	}{
		{name: "none"},
		{name: "one", added: []patio.FieldError{body("title")}, want: []patio.FieldError{body("title")}},
		{name: "as found within the body", added: []patio.FieldError{body("title"), body("brand"), body("price")},
			want: []patio.FieldError{body("title"), body("brand"), body("price")}},
		{name: "path, header, query, body",
			added: []patio.FieldError{body("title"), at(patio.InQuery, "limit"), body("brand"), at(patio.InHeader, "If-Match"),
				at(patio.InPath, "id"), at(patio.InQuery, "page")},
			want: []patio.FieldError{at(patio.InPath, "id"), at(patio.InHeader, "If-Match"), at(patio.InQuery, "limit"),
				at(patio.InQuery, "page"), body("title"), body("brand")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p patio.Problems
			for _, e := range tt.added {
				p.Add(e.In, e.Field, "%s is wrong", e.Field)
			}
			if p.Len() != len(tt.added) {
				t.Errorf("Len() = %d; want %d", p.Len(), len(tt.added))
			}
			err := p.Err()
			if tt.want == nil {
				if err != nil {
					t.Errorf("Err() = %v; want nil", err)
				}
				return
			}
			var e *patio.Error
			if !errors.As(err, &e) || e.Kind != patio.KindInvalid {
				t.Fatalf("Err() = %v; want a KindInvalid *patio.Error", err)
			}
			if !reflect.DeepEqual(shown(e.Details), tt.want) {
				t.Errorf("Err().Details = %v; want %v", e.Details, tt.want)
			}
			if e.Message != tt.want[0].Message || err.Error() != tt.want[0].Message {
				t.Errorf("Err() message = %q (%q); want the first problem's, %q", e.Message, err.Error(), tt.want[0].Message)
			}
			if again := p.Err().(*patio.Error); !reflect.DeepEqual(shown(again.Details), tt.want) {
				t.Errorf("Err() the second time lists %v; want %v", again.Details, tt.want)
			}
		})
	}
}

func TestProblemsHas(t *testing.T) {
	var p patio.Problems
	p.Add(patio.InQuery, "limit", "limit must be between 1 and %d", 100)
	tests := []struct {
		field string
		want  bool
	}{
		{field: "limit", want: true},
		{field: "page"},
		{field: "Limit"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			if got := p.Has(tt.field); got != tt.want {
				t.Errorf("Has(%q) = %v; want %v", tt.field, got, tt.want)
			}
		})
	}
}

func TestProblemsAddError(t *testing.T) {
	var inner patio.Problems
	inner.Add(patio.InBody, "address.state", "address.state must be a valid state code")
	inner.Add(patio.InBody, "address.zip_code", "address.zip_code must have 8 digits")
	tests := []struct {
		name string
		err  error
		want []patio.FieldError
	}{
		{name: "a KindInvalid error lists its problems", err: inner.Err(), want: []patio.FieldError{
			{Field: "address.state", In: patio.InBody, Message: "address.state must be a valid state code"},
			{Field: "address.zip_code", In: patio.InBody, Message: "address.zip_code must have 8 digits"},
		}},
		{name: "another error is one problem of the member", err: errors.New("address must be an object"), want: []patio.FieldError{
			{Field: "address", In: patio.InBody, Message: "address must be an object"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p patio.Problems
			p.AddError(patio.InBody, "address", tt.err)
			var e *patio.Error
			if !errors.As(p.Err(), &e) || !reflect.DeepEqual(shown(e.Details), tt.want) {
				t.Errorf("AddError(%q, %v) then Err() = %v; want the problems %v", "address", tt.err, p.Err(), tt.want)
			}
		})
	}
}

// shown returns problems as a client sees them: field, place and message (not the message's code
// and arguments, which only a translating adapter reads).
func shown(list []patio.FieldError) []patio.FieldError {
	out := make([]patio.FieldError, len(list))
	for i, e := range list {
		out[i] = patio.FieldError{Field: e.Field, In: e.In, Message: e.Message}
	}
	return out
}

// AddOthers leaves out the problems of a member that has one already, and keeps every other one
// (several of one new member, and those of no member).
func TestProblemsAddOthers(t *testing.T) {
	var domain patio.Problems
	domain.Add(patio.InBody, "amount", "%s must be above zero", "amount")
	domain.Add(patio.InBody, "description", "%s is required", "description")
	domain.Add(patio.InBody, "description", "%s must be at most %d characters", "description", 200)
	var p patio.Problems
	p.Add(patio.InBody, "amount", "%s must be an amount such as %s", "amount", "1234.56")
	p.AddOthers(patio.InBody, domain.Err())
	var e *patio.Error
	if !errors.As(p.Err(), &e) {
		t.Fatalf("Err() = %v; want the problems", p.Err())
	}
	var got []string
	for _, d := range e.Details {
		got = append(got, d.Message)
	}
	want := []string{"amount must be an amount such as 1234.56", "description is required", "description must be at most 200 characters"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AddOthers: problems %q; want %q", got, want)
	}
	p.AddOthers(patio.InBody, errors.New("boom"))
	if p.Len() != 4 {
		t.Errorf("AddOthers(a plain error) = %d problems; want it recorded (4)", p.Len())
	}
}
