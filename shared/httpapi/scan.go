package httpapi

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/patio-dev/patio/shared/patio"
)

// maxNumberLength bounds a JSON number literal: no field needs more, and a longer one would cost
// the decimal parser time out of proportion to the request.
const maxNumberLength = 40

// scanJSON checks a body cheaply, in one pass over its bytes and before anything parses it: no
// number literal longer than maxNumberLength (rejected as soon as it is seen, without reading the
// rest of it), no member name twice in one object, and strings of valid UTF-8 without lone
// surrogate escapes. Problems name the member (a dotted path for nested objects). Anything else
// that is malformed is left to the decoder.
func scanJSON(data []byte) error {
	type frame struct {
		object    bool
		keys      map[string]bool
		key       string
		index     int
		expectKey bool
	}
	var stack []*frame
	path := func() string {
		p := ""
		for _, f := range stack {
			switch {
			case f.object && f.key != "" && p != "":
				p += "." + f.key
			case f.object:
				p += f.key
			default:
				p += "[" + strconv.Itoa(f.index) + "]"
			}
		}
		return p
	}
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '{' || c == '[':
			stack = append(stack, &frame{object: c == '{', keys: map[string]bool{}, expectKey: c == '{'})
			i++
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case c == ',':
			if f := top(); f != nil {
				f.expectKey = f.object
				f.index++
			}
			i++
		case c == '"':
			end, ok := scanString(data, i)
			if !ok {
				field := path()
				if f := top(); f != nil && f.object && f.expectKey {
					field = ""
				}
				if field == "" {
					return problem(patio.InBody, field, "the body must be valid UTF-8 text")
				}
				return problem(patio.InBody, field, "%s must be valid UTF-8 text", field)
			}
			if f := top(); f != nil && f.object && f.expectKey {
				var key string
				if json.Unmarshal(data[i:end], &key) == nil {
					if f.keys[key] {
						f.key = key
						return problem(patio.InBody, path(), "%s is given twice", path())
					}
					f.keys[key] = true
					f.key = key
				}
				f.expectKey = false
			}
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(data) && j-i <= maxNumberLength && isNumberByte(data[j]) {
				j++
			}
			if j-i > maxNumberLength {
				field := path()
				return problem(patio.InBody, field, "%s must be a number of at most %d characters",
					nameOr(field, "a number"), maxNumberLength)
			}
			i = j
		default:
			i++
		}
	}
	return nil
}

func nameOr(field, whole string) string {
	if field == "" {
		return whole
	}
	return field
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// scanString returns the index just past the JSON string starting at data[i] (a quote), and
// whether the string is valid UTF-8 with no lone surrogate escape. An unterminated string ends
// the data (the decoder reports it).
func scanString(data []byte, i int) (int, bool) {
	ok := true
	j := i + 1
	for j < len(data) {
		c := data[j]
		switch {
		case c == '"':
			return j + 1, ok && utf8.Valid(data[i:j])
		case c == '\\' && j+1 < len(data) && data[j+1] == 'u' && j+6 <= len(data):
			r, err := strconv.ParseUint(string(data[j+2:j+6]), 16, 32)
			switch {
			case err != nil:
			case r >= 0xD800 && r <= 0xDBFF: // high surrogate: a low one must follow
				if j+12 > len(data) || data[j+6] != '\\' || data[j+7] != 'u' {
					ok = false
				} else if lo, err := strconv.ParseUint(string(data[j+8:j+12]), 16, 32); err != nil || lo < 0xDC00 || lo > 0xDFFF {
					ok = false
				} else {
					j += 6
				}
			case r >= 0xDC00 && r <= 0xDFFF:
				ok = false
			}
			j += 6
		case c == '\\':
			j += 2
		default:
			j++
		}
	}
	return len(data), ok
}
