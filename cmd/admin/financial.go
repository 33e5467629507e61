package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// financialCmd is the financial records module: revenue, expenses and costs of a team, due on a
// date, paid (pay, its own command: with the method and the date), cancelled and reopened, and the
// period summary.
func (c *cli) financialCmd() *cobra.Command {
	m := financialModule{c: c,
		name: "financial", short: "Financial records of a team (dashboard module)",
		one: "a financial record", noun: "financial record", many: "financial records",
		overdue: "pending records past their due date (in the team's time zone)",
		service: func() patio.Financial {
			return patio.NewFinancial(c.store.Financial(), accountdb.NewAccounts(c.store.DB()).Team).WithAudit(c.store, patio.ResourceFinancial)
		},
		types: patio.FinancialTypes, statuses: patio.FinancialStatuses,
		inputFlags: func(fs *pflag.FlagSet) {
			fs.String("category", "", "a category of the type ("+categoriesHelp()+")")
			fs.String("description", "", "description")
			fs.String("amount", "", "amount in reais, at most 2 decimal places, greater than 0")
			fs.String("due-date", "", "due date, YYYY-MM-DD")
			fs.String("payment-method", "", orList(patio.DealPaymentMethods)+" (empty to clear)")
			fs.String("notes", "", "notes (empty to clear)")
		},
		input: func(o *opts, r members) patio.FinancialInput {
			return patio.FinancialInput{Type: r.Type, Category: o.str("category"), Description: o.str("description"),
				Amount: o.amount("amount"), DueDate: o.date("due-date"), Status: r.Status, PaymentMethod: o.str("payment-method"),
				VehicleID: r.VehicleID, ClientID: r.ClientID, DealID: r.DealID, Notes: o.str("notes")}
		},
		moves: []move{
			{"reopen", "Reopen a financial record (back to pending; a paid one loses its paid_at)", string(patio.FinancialPending)},
		},
		to: func(status string) patio.FinancialInput { return patio.FinancialInput{Status: patio.Some(status)} },
		queryFlags: func(fs *pflag.FlagSet) {
			fs.String("category", "", "comma-separated categories")
			fs.String("payment-method", "", "comma-separated payment methods")
			fs.String("due-from", "", "due on or after, YYYY-MM-DD")
			fs.String("due-to", "", "due on or before, YYYY-MM-DD")
		},
		query: func(o *opts, l listing) patio.FinancialQuery {
			return patio.FinancialQuery{ListQuery: l.ListQuery, Type: l.Type, Category: o.list("category"),
				PaymentMethod: o.list("payment-method"), DueFrom: valueOf(o.date("due-from")), DueTo: valueOf(o.date("due-to")),
				VehicleID: l.VehicleID, ClientID: l.ClientID, DealID: l.DealID, Overdue: l.Overdue}
		},
		row: printFinancial,
	}
	pay := m.edit("pay", "Record the payment of a financial record", func(fs *pflag.FlagSet) {
		fs.String("payment-method", "", "how it was paid")
		fs.String("paid-at", "", "when it was paid, YYYY-MM-DDTHH:MM:SSZ (default: now)")
	}, func(o *opts) patio.FinancialInput {
		// An empty flag is one not given: the record keeps its method, the payment is dated now.
		return patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid)),
			PaymentMethod: given(o.str("payment-method")), PaidAt: given(o.timestamp("paid-at"))}
	})
	return m.commands(pay, c.financialSummary(m))
}

// financialModule is the financial records module's description.
type financialModule = module[patio.FinancialRecord, patio.FinancialInput, patio.FinancialQuery]

// financialSummary is the totals of a period by type, category and status (SummarizePeriod, the
// console's summary too).
func (c *cli) financialSummary(m financialModule) *cobra.Command {
	var team, from, to string
	summary := &cobra.Command{Use: "summary", Short: "Totals by type, category and status for a period (by due date)", Args: cobra.NoArgs}
	summary.RunE = c.run(func(ctx context.Context) error {
		f, err1 := patio.ParseDate(from)
		t, err2 := patio.ParseDate(to)
		if err1 != nil || err2 != nil {
			return patio.Invalidf("--from and --to must be dates YYYY-MM-DD")
		}
		s, err := patio.SummarizePeriod(ctx, m.service(), team, f, t)
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
	teamFlag(summary, &team)
	summary.Flags().StringVar(&from, "from", "", "first due date of the period, YYYY-MM-DD (required)")
	summary.Flags().StringVar(&to, "to", "", "last due date of the period, YYYY-MM-DD (required)")
	mustRequire(summary, "from", "to")
	return summary
}

// given is o unless it is null: for a flag whose empty value means "not given".
func given[V any](o patio.Opt[V]) patio.Opt[V] {
	if o.Null {
		return patio.Opt[V]{}
	}
	return o
}

func printFinancial(w io.Writer, f patio.FinancialRecord) {
	fmt.Fprintf(w, "%s\t%s/%s\t%s\t%s\tdue %s\t%s\n", f.ID, f.Type, f.Category, f.Status, f.Amount, f.DueDate, f.Description)
}

// categoriesHelp lists the categories of each financial record type, for the help text.
func categoriesHelp() string {
	each := make([]string, 0, len(patio.FinancialTypes))
	for _, t := range patio.FinancialTypes {
		each = append(each, t+": "+orList(patio.FinancialCategories[t]))
	}
	return strings.Join(each, "; ")
}
