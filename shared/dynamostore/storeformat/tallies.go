package storeformat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// What the indexer counts for q and the number ranges (docs/storage.md, "Totals of q and
// ranges"): in counter items of their own (CounterKey), one number per status, beside the open
// facets' counters, for the rows marked CountedAttr (themselves counted in CountedItem):
//
//   - per word: "q=<word>" counts the records with that word (WordCountKey), so a term that
//     starts one word of the team's only is counted by that word's counter;
//   - per value bucket of each Range: "r=<range>:<level>:<digits>:<prefix>" counts the records
//     whose value has that many digits and starts with that prefix of level digits (BucketKey),
//     so a range's total is its whole buckets' counts (Cover) and its edges' few records.

// Range is a number attribute whose range filter the indexer counts in buckets.
type Range struct {
	Name  string // the counters' name, "price"
	Attr  string // the row's number attribute, "price_cents"
	Width int    // the digits of the value in its sort index's keys (Padded)
	// Levels are the significant digits of its buckets, coarsest first: a value of d digits is
	// in one bucket per level, of 10^(d−level) values (the value alone when d ≤ level).
	Levels []int
	// PageLevel, when not 0, is the level whose buckets have items of their own, in creation
	// order: a word item of the pseudo-word PageWord per record (Layout.Words), so that a range
	// of a few such buckets reads its page in creation order from them.
	PageLevel int
}

// PageWord is the pseudo-word whose word items hold the records of a PageLevel bucket: "~" and
// the bucket's counter name without "r=" ("~price:2:08:10"); no term of q starts with "~".
func (r Range) PageWord(v int64) string { return bucketOf(v, r.PageLevel).pageWord(r.Name) }

// PageCover divides [lo, hi] into the PageLevel buckets it holds whole (their PageWord) and the
// spans left (at most two, each within one such bucket); ok is false past max whole buckets.
func (r Range) PageCover(lo, hi int64, max int) (words []string, rest []Span, ok bool) {
	for x := lo; x <= hi && x >= 0; {
		b := bucketOf(x, r.PageLevel)
		w := b.width()
		end := (b.prefix+1)*w - 1
		if x%w == 0 && end <= hi {
			if len(words) == max {
				return nil, nil, false
			}
			words = append(words, b.pageWord(r.Name))
		} else {
			end = min(end, hi)
			rest = addSpan(rest, x, end)
		}
		x = end + 1
	}
	return words, rest, true
}

// MaxBucketed is the largest value the buckets cover (18 digits: money in cents below 10^16
// reais); an open range's upper end.
const MaxBucketed = int64(999_999_999_999_999_999)

// WordCountKey is the counter item (CounterKey's item) of the records with a word; for a term, it
// starts the counter items of the words starting with it.
func WordCountKey(word string) string { return "q=" + keyValue(word) }

// bucket is one bucket of a range's values: its level, the values' digits and their prefix.
type bucket struct {
	level, digits int
	prefix        int64
}

// addSpan adds [lo, hi] to spans, joined to the last when they touch.
func addSpan(spans []Span, lo, hi int64) []Span {
	if n := len(spans); n > 0 && spans[n-1].Hi == lo-1 {
		spans[n-1].Hi = hi
		return spans
	}
	return append(spans, Span{lo, hi})
}

// pageWord is the bucket's PageWord.
func (b bucket) pageWord(name string) string { return "~" + b.key(name)[2:] }

func (b bucket) key(name string) string {
	return fmt.Sprintf("r=%s:%d:%02d:%0*d", name, b.level, b.digits, min(b.level, b.digits), b.prefix)
}

// width is the number of values the bucket holds.
func (b bucket) width() int64 { return pow10(max(b.digits-b.level, 0)) }

// bucketOf returns the bucket of level holding v (v ≥ 0).
func bucketOf(v int64, level int) bucket {
	d := digits(v)
	return bucket{level: level, digits: d, prefix: v / pow10(max(d-level, 0))}
}

// BucketKey is the counter item (CounterKey's item) of the bucket of one of r's levels holding v.
func (r Range) BucketKey(level int, v int64) string { return bucketOf(v, level).key(r.Name) }

// valueOf returns a row's value of the range, when it has one the buckets cover: none for a
// negative value or one past MaxBucketed (which no range's count then holds: Cover covers
// neither).
func (r Range) valueOf(row dynamo.Item) (int64, bool) {
	if _, ok := row[r.Attr].(*types.AttributeValueMemberN); !ok {
		return 0, false
	}
	v := int64(IntAttr(row, r.Attr))
	return v, v >= 0 && v <= MaxBucketed
}

// Buckets returns the counter items (CounterKey's items) a value the buckets cover (0 to
// MaxBucketed) is counted in, one per level.
func (r Range) Buckets(v int64) []string {
	out := make([]string, len(r.Levels))
	for i, l := range r.Levels {
		out[i] = r.BucketKey(l, v)
	}
	return out
}

// BucketRun is a run of a level's buckets, adjacent in value and in their counters' sort keys:
// the counter items from CounterKey(First, …) to CounterKey(Last, …).
type BucketRun struct{ First, Last string }

// Counters returns the inclusive bounds of the sort keys of every shard of the run's counters
// (as CounterRange's).
func (b BucketRun) Counters() (lo, hi string) {
	lo, _ = CounterRange(b.First)
	_, hi = CounterRange(b.Last)
	return lo, hi
}

// Span is an inclusive interval of values.
type Span struct{ Lo, Hi int64 }

// Cover divides the inclusive range [lo, hi] (0 ≤ lo, hi ≤ MaxBucketed) into whole buckets, as few
// as it can (the coarsest that fit), in runs, and the edges no bucket fits in: at most two
// spans, each within one bucket of the finest level. The range's records are the runs' counts
// plus the edges' records.
func (r Range) Cover(lo, hi int64) (runs []BucketRun, edges []Span) {
	var last bucket // the previous whole bucket: a run goes on while the level stays
	open := false
	for x := lo; x <= hi && x >= 0; {
		d := digits(x)
		classEnd := pow10(d) - 1
		if d == 1 {
			classEnd = 9
		}
		var b bucket
		found := false
		for _, l := range r.Levels { // coarsest first
			c := bucketOf(x, l)
			w := c.width()
			if x%w == 0 && x+w-1 <= hi {
				b, found = c, true
				break
			}
		}
		if !found {
			finest := bucketOf(x, r.Levels[len(r.Levels)-1])
			end := min(hi, (finest.prefix+1)*finest.width()-1)
			edges = addSpan(edges, x, end)
			open, x = false, end+1
			continue
		}
		// At the coarsest level, take every bucket of the class that fits at once.
		n := int64(1)
		if b.level == r.Levels[0] {
			n = max(1, min((classEnd-x+1)/b.width(), (hi-x+1)/b.width()))
		}
		lastOfStep := bucket{level: b.level, digits: b.digits, prefix: b.prefix + n - 1}
		if open && last.level == b.level {
			runs[len(runs)-1].Last = lastOfStep.key(r.Name)
		} else {
			runs = append(runs, BucketRun{First: b.key(r.Name), Last: lastOfStep.key(r.Name)})
		}
		last, open = lastOfStep, true
		next := x + n*b.width()
		if next <= x { // past the largest int64
			break
		}
		x = next
	}
	return runs, edges
}

// CountedItem is the counter item (CounterKey's item) in which the indexer counts, by status, the
// records it counted in the word and bucket counts (the rows marked CountedAttr).
const CountedItem = "counted"

// IsTally reports a counter item (CounterKey's item) the indexer keeps for q or a range (a word's,
// a bucket's, or CountedItem), not a facet value's.
func IsTally(item string) bool {
	return strings.HasPrefix(item, "q=") || strings.HasPrefix(item, "r=") || item == CountedItem
}

func digits(v int64) int { return len(strconv.FormatInt(v, 10)) }

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
