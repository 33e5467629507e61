package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// The dashboard modules: activities (activities.go) and financial records (financial.go), through
// the same use cases as the console. Each module is described once (module) and the commands they
// share are built from that description. The tool only turns flags into the use cases' typed
// inputs; every rule lives in shared/patio.

// opts turns the flags a command was given into typed input members: a flag not given is absent,
// a flag given empty is null (clears an optional member), anything else is parsed.
type opts struct {
	fs   *pflag.FlagSet
	errs []string
}

func (o *opts) str(name string) patio.Opt[string] {
	if !o.fs.Changed(name) {
		return patio.Opt[string]{}
	}
	v, _ := o.fs.GetString(name)
	if v == "" {
		return patio.Null[string]()
	}
	return patio.Some(v)
}

func (o *opts) timestamp(name string) patio.Opt[patio.Timestamp] {
	return parsed(o, name, patio.ParseTimestamp, "must be a timestamp YYYY-MM-DDTHH:MM:SSZ")
}

func (o *opts) date(name string) patio.Opt[patio.Date] {
	return parsed(o, name, patio.ParseDate, "must be a date YYYY-MM-DD")
}

func (o *opts) amount(name string) patio.Opt[money.Cents] {
	return parsed(o, name, money.Parse, "")
}

// parsed reads a flag as str does and parses the value given; one that does not parse is recorded
// as "--name want" (or, without want, with the parser's own words).
func parsed[V any](o *opts, name string, parse func(string) (V, error), want string) patio.Opt[V] {
	s := o.str(name)
	if !s.Set() {
		return patio.Opt[V]{Present: s.Present, Null: s.Null}
	}
	v, err := parse(s.Value)
	if err != nil {
		if want == "" {
			want = err.Error()
		}
		o.errs = append(o.errs, "--"+name+" "+want)
	}
	return patio.Some(v)
}

// list is a comma-separated flag's values (nil when not given or empty).
func (o *opts) list(name string) []string {
	v, _ := o.fs.GetString(name)
	return splitList(v)
}

// flag is a boolean flag's value (false when the command has no such flag).
func (o *opts) flag(name string) bool {
	v, _ := o.fs.GetBool(name)
	return v
}

func (o *opts) err() error {
	if len(o.errs) == 0 {
		return nil
	}
	return patio.Invalidf("%s", strings.Join(o.errs, "; "))
}

// module describes a dashboard module to the tool: its names, its use cases, how its input and its
// list query are read from flags, how a record prints as a line, and the status moves it has
// commands for. The commands every module has are built from it once (commands); each module adds
// only its own beside them. T is the module's record, In its create and update input, Q its list
// query.
type module[T patio.Record[T], In any, Q patio.Query] struct {
	c *cli
	// name and short are the command group's; one, noun and many name its records in help and
	// messages ("an activity", "activity", "activities"); overdue says which records are overdue.
	name, short, one, noun, many, overdue string
	// service is the module's use cases, audited; it is built when a command runs (the store is
	// connected then).
	service func() patio.Service[T, In, Q]
	// types and statuses are the values of the records' --type and --status.
	types, statuses []string
	// inputFlags declares the members of In that are the module's own as flags; input builds In
	// from the flags given (see opts) and the members every module has.
	inputFlags func(fs *pflag.FlagSet)
	input      func(o *opts, r members) In
	// moves are the status transitions the module has commands for; to is the input of one.
	moves []move
	to    func(status string) In
	// queryFlags declares the list filters that are the module's own; query builds the list query
	// from them and from what every list reads.
	queryFlags func(fs *pflag.FlagSet)
	query      func(o *opts, l listing) Q
	// row prints a record as one line of text.
	row func(w io.Writer, rec T)
}

// move is a command that moves a record to status, as the module's transition table allows (the
// refusal names both statuses).
type move struct{ use, short, status string }

// members are the input members every module's records have, read from their flags.
type members struct {
	Type, Status                patio.Opt[string]
	VehicleID, ClientID, DealID patio.Opt[string]
}

// listing is what every module's list reads from its flags: the paging, the types, the links and
// whether only the overdue records are listed.
type listing struct {
	patio.ListQuery
	Type                        []string
	VehicleID, ClientID, DealID *string
	Overdue                     bool
}

// commands builds the module's command group: create, get, update, cancel (the soft delete), list,
// overdue and a command per move, then the module's own commands.
func (m module[T, In, Q]) commands(own ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: m.name, Short: m.short}
	cmd.AddCommand(
		m.record("create", "Create "+m.one, false, m.fields, m.read, m.create),
		m.record("get", "Show "+m.one, true, nil, nil, m.get),
		m.edit("update", "Change "+m.one+" (only the flags given)", m.fields, m.read),
		m.record("cancel", "Cancel "+m.one+" (the soft delete)", true, nil, nil, m.archive),
		m.list("list", "List a team's "+m.many, false),
		m.list("overdue", "List "+m.overdue, true))
	for _, mv := range m.moves {
		cmd.AddCommand(m.edit(mv.use, mv.short, nil, func(*opts) In { return m.to(mv.status) }))
	}
	cmd.AddCommand(own...)
	return cmd
}

// fields declares the flags of a record's members: those every module has, then the module's own.
func (m module[T, In, Q]) fields(fs *pflag.FlagSet) {
	fs.String("type", "", orList(m.types))
	fs.String("status", "", orList(m.statuses))
	linkFlags(fs, "linked %s id (empty to clear)")
	m.inputFlags(fs)
}

// read is the input of the flags fields declares.
func (m module[T, In, Q]) read(o *opts) In {
	return m.input(o, members{Type: o.str("type"), Status: o.str("status"), VehicleID: o.str("vehicle"),
		ClientID: o.str("client"), DealID: o.str("deal")})
}

// record builds a command on a record of a team (--team, and --id when byID): it reads the input
// from the command's flags (flags declares them; input is nil for none), calls the use case and
// prints the record it returns. A flag that does not parse is refused before the use case runs.
func (m module[T, In, Q]) record(use, short string, byID bool, flags func(*pflag.FlagSet), input func(*opts) In,
	call func(ctx context.Context, team, id string, in In) (T, error)) *cobra.Command {
	var team, id string
	k := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs}
	k.RunE = m.c.run(func(ctx context.Context) error {
		var in In
		o := &opts{fs: k.Flags()}
		if input != nil {
			in = input(o)
		}
		if err := o.err(); err != nil {
			return err
		}
		rec, err := call(ctx, team, id, in)
		if err != nil {
			return err
		}
		return m.c.print(rec, func(w io.Writer) { m.row(w, rec) })
	})
	teamFlag(k, &team)
	if byID {
		k.Flags().StringVar(&id, "id", "", m.noun+" id (required)")
		mustRequire(k, "id")
	}
	if flags != nil {
		flags(k.Flags())
	}
	return k
}

// edit builds a command that updates a record with the input read from its flags.
func (m module[T, In, Q]) edit(use, short string, flags func(*pflag.FlagSet), input func(*opts) In) *cobra.Command {
	return m.record(use, short, true, flags, input, m.update)
}

func (m module[T, In, Q]) create(ctx context.Context, team, _ string, in In) (T, error) {
	return m.service().Create(ctx, team, in)
}

func (m module[T, In, Q]) get(ctx context.Context, team, id string, _ In) (T, error) {
	return m.service().Get(ctx, team, id)
}

func (m module[T, In, Q]) update(ctx context.Context, team, id string, in In) (T, error) {
	return m.service().Update(ctx, team, id, in)
}

func (m module[T, In, Q]) archive(ctx context.Context, team, id string, _ In) (T, error) {
	return m.service().Archive(ctx, team, id)
}

// list builds a list command: one page of the team's records, filtered; with overdue, only the
// overdue records (otherwise --overdue asks for them).
func (m module[T, In, Q]) list(use, short string, overdue bool) *cobra.Command {
	var team string
	var l listFlags
	k := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs}
	k.RunE = m.c.run(func(ctx context.Context) error {
		o := &opts{fs: k.Flags()}
		only := overdue || o.flag("overdue")
		q := m.query(o, listing{ListQuery: l.query(), Type: o.list("type"), VehicleID: valueOf(o.str("vehicle")),
			ClientID: valueOf(o.str("client")), DealID: valueOf(o.str("deal")), Overdue: only})
		if err := o.err(); err != nil {
			return err
		}
		page, err := m.service().List(ctx, team, q)
		if err != nil {
			return err
		}
		none := "no " + m.many + " match"
		if only {
			none = "no overdue " + m.many
		}
		return printPage(m.c, page, none, m.row)
	})
	teamFlag(k, &team)
	l.flags(k.Flags())
	k.Flags().String("type", "", "comma-separated types ("+strings.Join(m.types, ", ")+")")
	if !overdue {
		k.Flags().Bool("overdue", false, "only "+m.overdue)
	}
	m.queryFlags(k.Flags())
	linkFlags(k.Flags(), "only those linked to this %s id")
	return k
}

// teamFlag declares the --team every module command requires.
func teamFlag(k *cobra.Command, team *string) {
	k.Flags().StringVar(team, "team", "", "team id (required)")
	mustRequire(k, "team")
}

// linkFlags declares the optional links every module record has, each helped by help (a format of
// the record linked).
func linkFlags(fs *pflag.FlagSet, help string) {
	for _, name := range []string{"vehicle", "client", "deal"} {
		fs.String(name, "", fmt.Sprintf(help, name))
	}
}

// listFlags are the paging flags of the module lists.
type listFlags struct {
	limit, page          int
	sort, status, cursor string
}

func (l *listFlags) flags(fs *pflag.FlagSet) {
	fs.IntVar(&l.limit, "limit", patio.DefaultLimit, "records per page (1..100)")
	fs.IntVar(&l.page, "page", 1, "page number")
	fs.StringVar(&l.sort, "sort", "", "sort field, - for descending (default -created_at)")
	fs.StringVar(&l.status, "status", "", "comma-separated statuses (default: all but cancelled)")
	fs.StringVar(&l.cursor, "cursor", "", "the next_cursor of the previous page")
}

func (l *listFlags) query() patio.ListQuery {
	q := patio.ListQuery{Page: patio.Some(l.page), Limit: patio.Some(l.limit), Status: splitList(l.status), After: l.cursor}
	q.Sort, q.Desc = strings.TrimPrefix(l.sort, "-"), strings.HasPrefix(l.sort, "-")
	return q
}

// valueOf is a set member's value, or nil.
func valueOf[V any](o patio.Opt[V]) *V {
	if !o.Set() {
		return nil
	}
	return &o.Value
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

// printPage prints a list page: with --json {"data": [...], "pagination": {...}}; as text, a line
// per record and the page's place, or none when nothing matches.
func printPage[T any](c *cli, page patio.Page[T], none string, row func(io.Writer, T)) error {
	items := page.Items
	if items == nil {
		items = []T{}
	}
	var next *string
	if page.Next != "" {
		next = &page.Next
	}
	out := map[string]any{"data": items, "pagination": map[string]any{"page": page.List.Page.Value,
		"limit": page.List.Limit.Value, "total": page.Total, "pages": page.List.Pages(page.Total), "next_cursor": next}}
	return c.print(out, func(w io.Writer) {
		for _, it := range items {
			row(w, it)
		}
		switch pages := page.List.Pages(page.Total); {
		case page.Total == 0:
			fmt.Fprintln(w, none)
		case len(items) == 0:
			fmt.Fprintf(w, "page %d is past the last page (%s, %d in all)\n", page.List.Page.Value, plural(pages, "page"), page.Total)
		default:
			fmt.Fprintf(w, "page %d of %d (%d in all)\n", page.List.Page.Value, pages, page.Total)
		}
		if next != nil {
			fmt.Fprintf(w, "next: --cursor %s\n", *next)
		}
	})
}

// orList is "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// plural is "1 page", "2 pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
