package main

import (
	"fmt"
	"io"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/spf13/cobra"
)

// maintenanceCmd groups one-off upgrades of stored data.
func (c *cli) maintenanceCmd() *cobra.Command {
	m := &cobra.Command{Use: "maintenance", Short: "Upgrade stored data after a release that needs it"}
	var check bool
	backfill := &cobra.Command{
		Use:   "backfill",
		Short: "Bring rows written by previous versions to the current format (facet and order items, counts; word items through the indexer), fold old counters, move old alarms, rewrite old webhook rotations",
		Long: `Rewrites, in the vehicles, clients, deals, activities and financial tables, every record row
written before lists kept facet items, word items and their counts, or before index keys carried
the status (docs/storage.md, "Migration"). Safe to run while the API serves, to interrupt and to
run again: a row a live write rewrote first is skipped, nothing is counted twice, no updated_at or
revision changes and no event fires. The indexer function puts the rewritten rows' word items
from the stream, as it does for every write. Until a team's records all have their facet items,
its filtered lists read every record of the statuses they show.
It also folds the counter items of the first counter format (one per status and shard) into the
current shards, in the activities and financial tables moves pending alarms indexed under
their UTC day (the first format of the timer's index) to the index's one partition, and rewrites
webhooks stored in the first rotation format (the new secret in next_secret) in the current one.
With --check it writes nothing and reports what a run would do: a table holds nothing of a
previous format when its "scanned" is 0, and rows of the first list format (which this version's
lists do not see) are counted in "legacy".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.needResourceTables("maintenance backfill"); err != nil {
				return err
			}
			reports, err := c.store.Backfill(cmd.Context(), check, webhookdb.Migration(c.store.DB()))
			if err != nil {
				return c.fail(err)
			}
			return c.print(map[string]any{"tables": reports, "check": check}, func(w io.Writer) {
				fmt.Fprintln(w, "table\tscanned\tlegacy\tmigrated\tskipped\tcounters folded\talarms moved")
				for _, r := range reports {
					fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Table, r.Scanned, r.Legacy, r.Migrated, r.Skipped, r.Folded, r.Moved)
				}
			})
		},
	}
	backfill.Flags().BoolVar(&check, "check", false, "write nothing; report what is left of previous formats")
	m.AddCommand(backfill, c.indexCmd())
	return m
}

// needResourceTables fails what (a command) when the vehicles, clients or deals table is not
// configured.
func (c *cli) needResourceTables(what string) error {
	t := c.conf.Tables
	for _, v := range []struct{ name, table string }{{"VEHICLES_TABLE", t.Vehicles}, {"CLIENTS_TABLE", t.Clients}, {"DEALS_TABLE", t.Deals}} {
		if v.table == "" {
			return c.fail(fmt.Errorf("%s needs %s", what, v.name))
		}
	}
	return nil
}

// indexCmd rebuilds what the indexer keeps from the records.
func (c *cli) indexCmd() *cobra.Command {
	var check bool
	index := &cobra.Command{
		Use:   "index",
		Short: "Compare what the indexer keeps (q's word items, facet copies and counts) with the records and mend it",
		Long: `The indexer function keeps, from the vehicles, clients and deals tables' streams, the word
items q searches and the items of the vehicles' brand, model, phase and fuel filters and the
deals' client_id and vehicle_id filters, with the brand, model, client and vehicle counts. A batch it failed on past its retries goes to its
on-failure queue, and the records of that batch keep what they had: those lists may miss them, or
list them by old values, until their next write. This command reads every record row and every
such item of the three tables: it puts the items a record should have and has not, deletes or
rewrites the stale ones, and corrects each count that differs from the records. A record found
different is read again just before its items are written, so a live write is not undone; the
counts are corrected from the scans, so a write counted meanwhile leaves a difference a second run
finds: run it when writes are few. A record row whose stored words are not what its fields give
today (a vehicle written before its plate was a word in both spellings) is rewritten as it is (same
revision: no webhook event), and the indexer follows it from the stream ("words"). With --check it
writes nothing and reports what differs ("missing", "stale", "counts" and "words" 0 everywhere:
nothing to mend).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.needResourceTables("maintenance index"); err != nil {
				return err
			}
			reports, err := dynamostore.IndexerOf(c.store).RebuildIndex(cmd.Context(), check)
			if err != nil {
				return c.fail(err)
			}
			return c.print(map[string]any{"tables": reports, "check": check}, func(w io.Writer) {
				fmt.Fprintln(w, "table\trecords\titems\tmissing\tstale\tcounts\twords")
				for _, r := range reports {
					fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Table, r.Records, r.Items, r.Missing, r.Stale, r.Counts, r.Words)
				}
			})
		},
	}
	index.Flags().BoolVar(&check, "check", false, "write nothing; report the items missing and stale and the counts that differ")
	return index
}
