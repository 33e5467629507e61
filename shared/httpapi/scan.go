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
	sc := &scanner{data: data}
	for i := 0; i < len(data); {
		var err error
		switch c := data[i]; {
		case c == '{' || c == '[':
			sc.stack = append(sc.stack, &frame{object: c == '{', keys: map[string]bool{}, expectKey: c == '{'})
			i++
		case c == '}' || c == ']':
			if len(sc.stack) > 0 {
				sc.stack = sc.stack[:len(sc.stack)-1]
			}
			i++
		case c == ',':
			if f := sc.top(); f != nil {
				f.expectKey = f.object
				f.index++
			}
			i++
		case c == '"':
			i, err = sc.str(i)
		case c == '-' || (c >= '0' && c <= '9'):
			i, err = sc.number(i)
		default:
			i++
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scanner is scanJSON's position in a body: the objects and arrays it is in.
type scanner struct {
	data  []byte
	stack []*frame
}

// frame is an object or array the scanner is in.
type frame struct {
	object    bool
	keys      map[string]bool // an object's member names so far
	key       string          // an object's current member
	index     int             // an array's current element
	expectKey bool            // an object's next string is a member name
}

// path names where the scanner is: a dotted path of member names, [i] for array elements.
func (sc *scanner) path() string {
	p := ""
	for _, f := range sc.stack {
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

// top is the innermost object or array, or nil.
func (sc *scanner) top() *frame {
	if len(sc.stack) == 0 {
		return nil
	}
	return sc.stack[len(sc.stack)-1]
}

// str checks the string at i (valid UTF-8; a member name not given twice) and returns where it
// ends.
func (sc *scanner) str(i int) (int, error) {
	end, ok := scanString(sc.data, i)
	f := sc.top()
	isKey := f != nil && f.object && f.expectKey
	if !ok {
		field := sc.path()
		if isKey {
			field = ""
		}
		if field == "" {
			return end, problem(patio.InBody, field, "the body must be valid UTF-8 text")
		}
		return end, problem(patio.InBody, field, "%s must be valid UTF-8 text", field)
	}
	if isKey {
		var key string
		if json.Unmarshal(sc.data[i:end], &key) == nil {
			f.key = key
			if f.keys[key] {
				return end, problem(patio.InBody, sc.path(), "%s is given twice", sc.path())
			}
			f.keys[key] = true
		}
		f.expectKey = false
	}
	return end, nil
}

// number checks the number literal at i is at most maxNumberLength long, reading no further, and
// returns where it ends.
func (sc *scanner) number(i int) (int, error) {
	j := i
	for j < len(sc.data) && j-i <= maxNumberLength && isNumberByte(sc.data[j]) {
		j++
	}
	if j-i > maxNumberLength {
		field := sc.path()
		return j, problem(patio.InBody, field, "%s must be a number of at most %d characters",
			nameOr(field, "a number"), maxNumberLength)
	}
	return j, nil
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
