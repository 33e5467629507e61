package lists

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// Cond is one condition of a list on a record's stored attributes. The same value is both a
// DynamoDB filter expression (expr) and a predicate on an item (match), so a list filtered by
// DynamoDB and one filtered in memory (a page cut from a few matches, a partition awaiting the
// backfill) keep the same records.
type Cond struct {
	attr string
	op   condOp
	args []any // strings for in and word; an int64 or a string for the bounds
}

type condOp int

const (
	opIn   condOp = iota // the attribute is one of args
	opMin                // the attribute is at least args[0]
	opMax                // the attribute is at most args[0]
	opWord               // a word of the attribute (wordsAttr) starts with args[0]
)

// In is the condition "attr is one of values".
func In(attr string, values []string) Cond {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return Cond{attr: attr, op: opIn, args: args}
}

// expr returns the condition in guregu/dynamo's placeholder syntax, and its arguments.
func (c Cond) expr() (string, []any) {
	name := "'" + c.attr + "'"
	switch c.op {
	case opMin:
		return name + " >= ?", c.args
	case opMax:
		return name + " <= ?", c.args
	case opWord:
		return "contains(" + name + ", ?)", []any{" " + c.args[0].(string)}
	}
	if len(c.args) == 1 {
		return name + " = ?", c.args
	}
	return name + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(c.args)), ", ") + ")", c.args
}

// match reports whether an item satisfies the condition, as DynamoDB would.
func (c Cond) match(item dynamo.Item) bool {
	switch v := item[c.attr].(type) {
	case *types.AttributeValueMemberS:
		switch c.op {
		case opIn:
			return slices.Contains(c.args, any(v.Value))
		case opWord:
			return strings.Contains(v.Value, " "+c.args[0].(string))
		}
		bound, ok := c.args[0].(string)
		return ok && compareBound(strings.Compare(v.Value, bound), c.op)
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		bound, ok := c.args[0].(int64)
		return err == nil && ok && (c.op == opMin || c.op == opMax) && compareBound(cmpInt(n, bound), c.op)
	}
	return false
}

func compareBound(c int, op condOp) bool {
	if op == opMin {
		return c >= 0
	}
	return c <= 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// conds is a list's conditions, all of which a record must meet.
type conds []Cond

// matchAll reports whether an item meets every condition.
func (cs conds) matchAll(item dynamo.Item) bool {
	for _, c := range cs {
		if !c.match(item) {
			return false
		}
	}
	return true
}

// apply adds the conditions to a query as its filter expression.
func (cs conds) apply(q *dynamo.Query) *dynamo.Query {
	if len(cs) == 0 {
		return q
	}
	parts := make([]string, len(cs))
	var args []any
	for i, c := range cs {
		var a []any
		parts[i], a = c.expr()
		args = append(args, a...)
	}
	return q.Filter(strings.Join(parts, " AND "), args...)
}

// without returns the conditions but those on attr.
func (cs conds) without(attr string) conds {
	return slices.DeleteFunc(slices.Clone(cs), func(c Cond) bool { return c.attr == attr })
}
