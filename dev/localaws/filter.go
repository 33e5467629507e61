package localaws

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// Filter is a Lambda event filter (an event source mapping's FilterCriteria): a record passes when
// it matches one of its patterns. A nil Filter passes every record.
type Filter []map[string]any

// ParseFilter reads FilterCriteria patterns (JSON). It supports what Lambda's event filtering
// does with objects, lists of values, and the prefix and exists operators; anything else is an
// error, so that the local stack never filters otherwise than Lambda would.
func ParseFilter(patterns []string) (Filter, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	var f Filter
	for _, p := range patterns {
		var m map[string]any
		if err := json.Unmarshal([]byte(p), &m); err != nil {
			return nil, fmt.Errorf("localaws: filter pattern %s: %w", p, err)
		}
		if err := checkPattern(m); err != nil {
			return nil, fmt.Errorf("localaws: filter pattern %s: %w", p, err)
		}
		f = append(f, m)
	}
	return f, nil
}

func checkPattern(m map[string]any) error {
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			if err := checkPattern(v); err != nil {
				return err
			}
		case []any:
			for _, x := range v {
				if op, ok := x.(map[string]any); ok {
					for name := range op {
						if name != "prefix" && name != "exists" {
							return fmt.Errorf("operator %s of %s is not supported locally", name, k)
						}
					}
				}
			}
		default:
			return fmt.Errorf("%s: a pattern's leaves are lists", k)
		}
	}
	return nil
}

// Match reports whether a stream record, as Lambda presents it to filters (its JSON form), passes.
func (f Filter) Match(rec events.DynamoDBEventRecord) bool {
	if f == nil {
		return true
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return false
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return false
	}
	for _, p := range f {
		if matches(p, doc) {
			return true
		}
	}
	return false
}

func matches(pattern, doc map[string]any) bool {
	for k, want := range pattern {
		got, present := doc[k]
		switch want := want.(type) {
		case map[string]any:
			sub, ok := got.(map[string]any)
			if !ok || !matches(want, sub) {
				return false
			}
		case []any:
			if !matchesAny(want, got, present) {
				return false
			}
		}
	}
	return true
}

// matchesAny reports whether a value matches one of a pattern's list: a value equal to it, or an
// operator it satisfies.
func matchesAny(list []any, got any, present bool) bool {
	for _, w := range list {
		switch w := w.(type) {
		case map[string]any:
			if p, ok := w["prefix"].(string); ok {
				if s, ok := got.(string); ok && strings.HasPrefix(s, p) {
					return true
				}
			}
			if e, ok := w["exists"].(bool); ok && e == present {
				return true
			}
		default:
			if present && fmt.Sprint(w) == fmt.Sprint(got) {
				return true
			}
		}
	}
	return false
}
