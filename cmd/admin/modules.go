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

// The dashboard modules (CONTRACT.md section 15): activities and financial records, reached from
// this tool until a dashboard back end calls the same use cases. The tool only turns flags into the
// use cases' typed inputs; every rule lives in shared/patio.

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
	s := o.str(name)
	if !s.Set() {
		return patio.Opt[patio.Timestamp]{Present: s.Present, Null: s.Null}
	}
	t, err := patio.ParseTimestamp(s.Value)
	if err != nil {
		o.errs = append(o.errs, fmt.Sprintf("--%s must be a timestamp YYYY-MM-DDTHH:MM:SSZ", name))
	}
	return patio.Some(t)
}

func (o *opts) date(name string) patio.Opt[patio.Date] {
	s := o.str(name)
	if !s.Set() {
		return patio.Opt[patio.Date]{Present: s.Present, Null: s.Null}
	}
	d, err := patio.ParseDate(s.Value)
	if err != nil {
		o.errs = append(o.errs, fmt.Sprintf("--%s must be a date YYYY-MM-DD", name))
	}
	return patio.Some(d)
}

func (o *opts) amount(name string) patio.Opt[money.Cents] {
	s := o.str(name)
	if !s.Set() {
		return patio.Opt[money.Cents]{Present: s.Present, Null: s.Null}
	}
	c, err := money.Parse(s.Value)
	if err != nil {
		o.errs = append(o.errs, fmt.Sprintf("--%s %v", name, err))
	}
	return patio.Some(c)
}

func (o *opts) err() error {
	if len(o.errs) == 0 {
		return nil
	}
	return patio.Invalidf("%s", strings.Join(o.errs, "; "))
}

// linkFlags are the optional links every module record has.
func linkFlags(fs *pflag.FlagSet) {
	fs.String("vehicle", "", "linked vehicle id (empty to clear)")
	fs.String("client", "", "linked client id (empty to clear)")
	fs.String("deal", "", "linked deal id (empty to clear)")
}

func (c *cli) activitiesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "activities", Short: "Activities of a team (dashboard module)"}
	svc := func() patio.Activities {
		return patio.NewActivities(c.store.Activities()).WithAudit(c.store, patio.ResourceActivity)
	}
	input := func(fs *pflag.FlagSet) (patio.ActivityInput, error) {
		o := &opts{fs: fs}
		in := patio.ActivityInput{Type: o.str("type"), Title: o.str("title"), Description: o.str("description"),
			Status: o.str("status"), DueAt: o.timestamp("due-at"), VehicleID: o.str("vehicle"), ClientID: o.str("client"),
			DealID: o.str("deal")}
		return in, o.err()
	}
	inputFlags := func(fs *pflag.FlagSet) {
		fs.String("type", "", "task, deadline, meeting, call, email or note")
		fs.String("title", "", "title")
		fs.String("description", "", "description (empty to clear)")
		fs.String("status", "", "pending, in_progress, completed or cancelled")
		fs.String("due-at", "", "due time, YYYY-MM-DDTHH:MM:SSZ (empty to clear)")
		linkFlags(fs)
	}
	var team, id string
	teamFlag := func(k *cobra.Command) {
		k.Flags().StringVar(&team, "team", "", "team id (required)")
		mustRequire(k, "team")
	}
	one := func(k *cobra.Command) {
		teamFlag(k)
		k.Flags().StringVar(&id, "id", "", "activity id (required)")
		mustRequire(k, "id")
	}
	show := func(a patio.Activity, err error) error {
		if err != nil {
			return err
		}
		return c.print(a, func(w io.Writer) { printActivity(w, a) })
	}

	create := &cobra.Command{Use: "create", Short: "Create an activity", Args: cobra.NoArgs}
	create.RunE = c.run(func(ctx context.Context) error {
		in, err := input(create.Flags())
		if err != nil {
			return err
		}
		return show(svc().Create(ctx, team, in))
	})
	teamFlag(create)
	inputFlags(create.Flags())

	get := &cobra.Command{Use: "get", Short: "Show an activity", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error { return show(svc().Get(ctx, team, id)) })}
	one(get)

	update := &cobra.Command{Use: "update", Short: "Change an activity (only the flags given)", Args: cobra.NoArgs}
	update.RunE = c.run(func(ctx context.Context) error {
		in, err := input(update.Flags())
		if err != nil {
			return err
		}
		return show(svc().Update(ctx, team, id, in))
	})
	one(update)
	inputFlags(update.Flags())

	complete := &cobra.Command{Use: "complete", Short: "Complete an activity", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			return show(svc().Update(ctx, team, id, patio.ActivityInput{Status: patio.Some(patio.ActivityCompleted)}))
		})}
	one(complete)

	cancel := &cobra.Command{Use: "cancel", Short: "Cancel an activity (the soft delete)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error { return show(svc().Archive(ctx, team, id)) })}
	one(cancel)

	var q listFlags
	var types, dueFrom, dueTo string
	var overdue bool
	list := &cobra.Command{Use: "list", Short: "List a team's activities", Args: cobra.NoArgs}
	list.RunE = c.run(func(ctx context.Context) error {
		o := &opts{fs: list.Flags()}
		query := patio.ActivityQuery{ListQuery: q.query(), Type: splitList(types), Overdue: overdue}
		from, to := o.timestamp("due-from"), o.timestamp("due-to")
		if from.Set() {
			query.DueFrom = &from.Value
		}
		if to.Set() {
			query.DueTo = &to.Value
		}
		query.VehicleID, query.ClientID, query.DealID = valueOf(o.str("vehicle")), valueOf(o.str("client")), valueOf(o.str("deal"))
		if err := o.err(); err != nil {
			return err
		}
		page, err := svc().List(ctx, team, query)
		if err != nil {
			return err
		}
		none := "no activities match"
		if overdue {
			none = "no overdue activities"
		}
		return printPage(c, page, none, func(w io.Writer, a patio.Activity) { printActivity(w, a) })
	})
	teamFlag(list)
	q.flags(list.Flags())
	list.Flags().StringVar(&types, "type", "", "comma-separated types")
	list.Flags().StringVar(&dueFrom, "due-from", "", "due at or after, YYYY-MM-DDTHH:MM:SSZ")
	list.Flags().StringVar(&dueTo, "due-to", "", "due at or before, YYYY-MM-DDTHH:MM:SSZ")
	list.Flags().BoolVar(&overdue, "overdue", false, "only open activities whose due time has passed")
	linkFlags(list.Flags())

	cmd.AddCommand(create, get, update, complete, cancel, list)
	return cmd
}

func (c *cli) financialCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "financial", Short: "Financial records of a team (dashboard module)"}
	svc := func() patio.Financial {
		return patio.NewFinancial(c.store.Financial(), c.store.Team).WithAudit(c.store, patio.ResourceFinancial)
	}
	input := func(fs *pflag.FlagSet) (patio.FinancialInput, error) {
		o := &opts{fs: fs}
		in := patio.FinancialInput{Type: o.str("type"), Category: o.str("category"), Description: o.str("description"),
			Amount: o.amount("amount"), DueDate: o.date("due-date"), Status: o.str("status"),
			PaymentMethod: o.str("payment-method"), VehicleID: o.str("vehicle"), ClientID: o.str("client"),
			DealID: o.str("deal"), Notes: o.str("notes")}
		return in, o.err()
	}
	inputFlags := func(fs *pflag.FlagSet) {
		fs.String("type", "", "revenue, expense or cost")
		fs.String("category", "", "a category of the type (SPEC.md section 2)")
		fs.String("description", "", "description")
		fs.String("amount", "", "amount in reais, at most 2 decimal places, greater than 0")
		fs.String("due-date", "", "due date, YYYY-MM-DD")
		fs.String("status", "", "pending, paid or cancelled")
		fs.String("payment-method", "", "pix, boleto, cartao, transferencia, financiamento, dinheiro or cheque (empty to clear)")
		fs.String("notes", "", "notes (empty to clear)")
		linkFlags(fs)
	}
	var team, id string
	teamFlag := func(k *cobra.Command) {
		k.Flags().StringVar(&team, "team", "", "team id (required)")
		mustRequire(k, "team")
	}
	one := func(k *cobra.Command) {
		teamFlag(k)
		k.Flags().StringVar(&id, "id", "", "financial record id (required)")
		mustRequire(k, "id")
	}
	show := func(f patio.FinancialRecord, err error) error {
		if err != nil {
			return err
		}
		return c.print(f, func(w io.Writer) { printFinancial(w, f) })
	}

	create := &cobra.Command{Use: "create", Short: "Create a financial record", Args: cobra.NoArgs}
	create.RunE = c.run(func(ctx context.Context) error {
		in, err := input(create.Flags())
		if err != nil {
			return err
		}
		return show(svc().Create(ctx, team, in))
	})
	teamFlag(create)
	inputFlags(create.Flags())

	get := &cobra.Command{Use: "get", Short: "Show a financial record", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error { return show(svc().Get(ctx, team, id)) })}
	one(get)

	update := &cobra.Command{Use: "update", Short: "Change a financial record (only the flags given)", Args: cobra.NoArgs}
	update.RunE = c.run(func(ctx context.Context) error {
		in, err := input(update.Flags())
		if err != nil {
			return err
		}
		return show(svc().Update(ctx, team, id, in))
	})
	one(update)
	inputFlags(update.Flags())

	var method string
	var paidAt string
	pay := &cobra.Command{Use: "pay", Short: "Record the payment of a financial record", Args: cobra.NoArgs}
	pay.RunE = c.run(func(ctx context.Context) error {
		in := patio.FinancialInput{Status: patio.Some(patio.FinancialPaid)}
		if method != "" {
			in.PaymentMethod = patio.Some(method)
		}
		if paidAt != "" {
			t, err := patio.ParseTimestamp(paidAt)
			if err != nil {
				return patio.Invalidf("--paid-at must be a timestamp YYYY-MM-DDTHH:MM:SSZ")
			}
			in.PaidAt = patio.Some(t)
		}
		return show(svc().Update(ctx, team, id, in))
	})
	one(pay)
	pay.Flags().StringVar(&method, "payment-method", "", "how it was paid")
	pay.Flags().StringVar(&paidAt, "paid-at", "", "when it was paid, YYYY-MM-DDTHH:MM:SSZ (default: now)")

	cancel := &cobra.Command{Use: "cancel", Short: "Cancel a financial record (delete = cancel)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error { return show(svc().Archive(ctx, team, id)) })}
	one(cancel)

	list := func(use, short string, overdue bool) *cobra.Command {
		var q listFlags
		var types, categories, methods string
		k := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs}
		k.RunE = c.run(func(ctx context.Context) error {
			o := &opts{fs: k.Flags()}
			query := patio.FinancialQuery{ListQuery: q.query(), Type: splitList(types), Category: splitList(categories),
				PaymentMethod: splitList(methods), Overdue: overdue}
			from, to := o.date("due-from"), o.date("due-to")
			if from.Set() {
				query.DueFrom = &from.Value
			}
			if to.Set() {
				query.DueTo = &to.Value
			}
			query.VehicleID, query.ClientID, query.DealID = valueOf(o.str("vehicle")), valueOf(o.str("client")), valueOf(o.str("deal"))
			if err := o.err(); err != nil {
				return err
			}
			page, err := svc().List(ctx, team, query)
			if err != nil {
				return err
			}
			none := "no financial records match"
			if overdue {
				none = "no overdue financial records"
			}
			return printPage(c, page, none, func(w io.Writer, f patio.FinancialRecord) { printFinancial(w, f) })
		})
		teamFlag(k)
		q.flags(k.Flags())
		k.Flags().StringVar(&types, "type", "", "comma-separated types")
		k.Flags().StringVar(&categories, "category", "", "comma-separated categories")
		k.Flags().StringVar(&methods, "payment-method", "", "comma-separated payment methods")
		k.Flags().String("due-from", "", "due on or after, YYYY-MM-DD")
		k.Flags().String("due-to", "", "due on or before, YYYY-MM-DD")
		linkFlags(k.Flags())
		return k
	}

	var from, to string
	summary := &cobra.Command{Use: "summary", Short: "Totals by type, category and status for a period (by due date)", Args: cobra.NoArgs}
	summary.RunE = c.run(func(ctx context.Context) error {
		f, err1 := patio.ParseDate(from)
		t, err2 := patio.ParseDate(to)
		if err1 != nil || err2 != nil {
			return patio.Invalidf("--from and --to must be dates YYYY-MM-DD")
		}
		s, err := patio.SummarizePeriod(ctx, svc(), team, f, t)
		if err != nil {
			return err
		}
		out := map[string]any{"from": f, "to": t, "records": s.Records, "by_type": s.ByType,
			"by_category": s.ByCategory, "by_status": s.ByStatus}
		return c.print(out, func(w io.Writer) {
			fmt.Fprintf(w, "period\t%s to %s\nrecords\t%d\n", f, t, s.Records)
			for typ, total := range s.ByType {
				fmt.Fprintf(w, "%s\t%s\n", typ, total)
				for cat, sub := range s.ByCategory[typ] {
					fmt.Fprintf(w, "  %s\t%s\n", cat, sub)
				}
			}
			for st, total := range s.ByStatus {
				fmt.Fprintf(w, "status %s\t%s\n", st, total)
			}
		})
	})
	teamFlag(summary)
	summary.Flags().StringVar(&from, "from", "", "first due date of the period, YYYY-MM-DD (required)")
	summary.Flags().StringVar(&to, "to", "", "last due date of the period, YYYY-MM-DD (required)")
	mustRequire(summary, "from", "to")

	cmd.AddCommand(create, get, update, pay, cancel, list("list", "List a team's financial records", false),
		list("overdue", "List pending records past their due date (in the team's time zone)", true), summary)
	return cmd
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
func valueOf(o patio.Opt[string]) *string {
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

// plural is "1 page", "2 pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func printActivity(w io.Writer, a patio.Activity) {
	due := "-"
	if a.DueAt != nil {
		due = a.DueAt.String()
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\tdue %s\t%s\n", a.ID, a.Type, a.Status, due, a.Title, a.UpdatedAt)
}

func printFinancial(w io.Writer, f patio.FinancialRecord) {
	fmt.Fprintf(w, "%s\t%s/%s\t%s\t%s\tdue %s\t%s\n", f.ID, f.Type, f.Category, f.Status, f.Amount, f.DueDate, f.Description)
}
