package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// maintenanceCmd groups one-off upgrades of stored data.
func (c *cli) maintenanceCmd() *cobra.Command {
	m := &cobra.Command{Use: "maintenance", Short: "Upgrade stored data after a release that needs it"}
	m.AddCommand(&cobra.Command{
		Use:   "backfill",
		Short: "Rewrite rows of the previous list format (status-prefixed keys, order items, counts), fold old counters, move old alarms",
		Long: `Rewrites, in the vehicles, clients and deals tables, every record row written before lists kept
status-prefixed index keys, order items and maintained counts (docs/storage.md, "Migration").
Safe to run while the API serves, to interrupt and to run again: a row a live write rewrote first
is skipped, nothing is counted twice, no updated_at or revision changes and no event fires. Until a
team has no row of the previous format left, its lists are served and counted the old way.
It also folds the counter items of the previous counter format (one per status and shard) into the
current shards (one item per shard for every status); lists sum both formats meanwhile.
In the activities and financial tables (when configured), it moves pending alarms indexed under
their UTC day (the first format of the timer's index) to the index's one partition, which the
timer reads; an alarm a live write re-armed first is skipped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t := c.conf.Tables
			for name, v := range map[string]string{"VEHICLES_TABLE": t.Vehicles, "CLIENTS_TABLE": t.Clients, "DEALS_TABLE": t.Deals} {
				if v == "" {
					return c.fail(fmt.Errorf("maintenance backfill needs %s", name))
				}
			}
			reports, err := c.store.Backfill(cmd.Context())
			if err != nil {
				return c.fail(err)
			}
			return c.print(map[string]any{"tables": reports}, func(w io.Writer) {
				fmt.Fprintln(w, "table\tscanned\tmigrated\tskipped\tcounters folded\talarms moved")
				for _, r := range reports {
					fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\n", r.Table, r.Scanned, r.Migrated, r.Skipped, r.Folded, r.Moved)
				}
			})
		},
	})
	return m
}
