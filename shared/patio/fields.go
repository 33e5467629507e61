package patio

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/money"
)

// Opt is one member of a request body: absent, explicitly null, or set to Value.
// PUT is a partial update, so the three cases mean "keep", "clear" and "set".
type Opt[T any] struct {
	Present bool
	Null    bool
	Value   T
}

// Set reports whether the member is present with a value (not null).
func (o Opt[T]) Set() bool { return o.Present && !o.Null }

// Body is a JSON request body split into its top-level members.
type Body map[string]json.RawMessage

// serverFields are managed by the server; a body that sends one is 400.
var serverFields = map[string]bool{
	"id": true, "team_id": true, "created_at": true, "updated_at": true,
	"closed_at": true, "sold_at": true, "sold_deal_id": true,
}

// field parses one body member by name.
type field struct {
	name  string
	parse func(raw json.RawMessage) error
}

// decodeBody runs each member of body through its field parser, in name order so the first error
// reported is stable. Unknown and server-managed members are KindInvalid.
func decodeBody(body Body, fields []field) error { return decodeObject("", body, fields) }

// decodeObject is decodeBody for a JSON object nested at prefix ("address." for the address member):
// its fields are named prefix+member, and so are its errors ("unknown field address.foo").
// Server-managed names are only reserved at the top level.
func decodeObject(prefix string, obj Body, fields []field) error {
	byName := make(map[string]field, len(fields))
	for _, f := range fields {
		byName[f.name] = f
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if prefix == "" && serverFields[k] {
			return Invalidf("%s is managed by the server and cannot be sent", k)
		}
		f, ok := byName[prefix+k]
		if !ok {
			return Invalidf("unknown field %s%s", prefix, k)
		}
		if err := f.parse(obj[k]); err != nil {
			return err
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// optField builds a field that handles null itself and hands any other value to parse.
func optField[T any](name string, dst *Opt[T], parse func(raw json.RawMessage) (T, error)) field {
	return field{name: name, parse: func(raw json.RawMessage) error {
		*dst = Opt[T]{Present: true}
		if isNull(raw) {
			dst.Null = true
			return nil
		}
		v, err := parse(raw)
		if err != nil {
			return err
		}
		dst.Value = v
		return nil
	}}
}

func rawString(name string, raw json.RawMessage) (string, error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", Invalidf("%s must be a string", name)
	}
	return s, nil
}

// textField is a trimmed string of min..max characters.
func textField(name string, minLen, maxLen int, dst *Opt[string]) field {
	return optField(name, dst, func(raw json.RawMessage) (string, error) {
		s, err := rawString(name, raw)
		if err != nil {
			return "", err
		}
		s = strings.TrimSpace(s)
		n := utf8.RuneCountInString(s)
		switch {
		case n < minLen && minLen == 1:
			return "", Invalidf("%s must not be empty", name)
		case n < minLen:
			return "", Invalidf("%s must have at least %d characters", name, minLen)
		case n > maxLen:
			return "", Invalidf("%s must be at most %d characters", name, maxLen)
		}
		return s, nil
	})
}

// normalizedField is a string passed through a normaliser; its error text follows the field name.
func normalizedField(name string, dst *Opt[string], normalize func(string) (string, error)) field {
	return optField(name, dst, func(raw json.RawMessage) (string, error) {
		s, err := rawString(name, raw)
		if err != nil {
			return "", err
		}
		v, err := normalize(s)
		if err != nil {
			return "", Invalidf("%s %v", name, err)
		}
		return v, nil
	})
}

// enumField is a string from a fixed list.
func enumField(name string, allowed []string, dst *Opt[string]) field {
	return optField(name, dst, func(raw json.RawMessage) (string, error) {
		s, err := rawString(name, raw)
		if err != nil {
			return "", err
		}
		if !contains(allowed, s) {
			return "", Invalidf("%s must be one of %s", name, strings.Join(allowed, ", "))
		}
		return s, nil
	})
}

// intField is a whole JSON number within [minV, maxV].
func intField(name string, minV, maxV int, dst *Opt[int]) field {
	return optField(name, dst, func(raw json.RawMessage) (int, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil {
			return 0, Invalidf("%s must be an integer", name)
		}
		if n < int64(minV) || n > int64(maxV) {
			return 0, Invalidf("%s must be between %d and %d", name, minV, maxV)
		}
		return int(n), nil
	})
}

// moneyField is an exact amount.
func moneyField(name string, dst *Opt[money.Cents]) field {
	return optField(name, dst, func(raw json.RawMessage) (money.Cents, error) {
		c, err := money.Parse(strings.TrimSpace(string(raw)))
		if err != nil {
			return 0, Invalidf("%s %v", name, err)
		}
		return c, nil
	})
}

// dateField is a YYYY-MM-DD date.
func dateField(name string, dst *Opt[Date]) field {
	return optField(name, dst, func(raw json.RawMessage) (Date, error) {
		s, err := rawString(name, raw)
		if err != nil {
			return Date{}, err
		}
		d, err := ParseDate(s)
		if err != nil {
			return Date{}, Invalidf("%s must be a date in the form YYYY-MM-DD", name)
		}
		return d, nil
	})
}

// idField is a UUID, returned in its canonical lower-case form.
func idField(name string, dst *Opt[string]) field {
	return optField(name, dst, func(raw json.RawMessage) (string, error) {
		s, err := rawString(name, raw)
		if err != nil {
			return "", err
		}
		id, ok := ParseID(s)
		if !ok {
			return "", Invalidf("%s must be a UUID", name)
		}
		return id, nil
	})
}

// ParseID returns the canonical form of a UUID and whether s is one.
func ParseID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// notNull reports a KindInvalid error when a member that may not be cleared is null.
func notNull[T any](name string, o Opt[T]) error {
	if o.Present && o.Null {
		return Invalidf("%s must not be null", name)
	}
	return nil
}

// apply sets *dst from o: a value sets it, null clears it, absence keeps it.
func apply[T any](dst **T, o Opt[T]) {
	switch {
	case !o.Present:
	case o.Null:
		*dst = nil
	default:
		*dst = ptr(o.Value)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
