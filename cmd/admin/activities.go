package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/patio-dev/patio/shared/patio"
)

// activitiesCmd is the activities module: tasks, deadlines and events of a team, linked to its
// vehicles, clients and deals, started, completed, cancelled and reopened.
func (c *cli) activitiesCmd() *cobra.Command {
	return module[patio.Activity, patio.ActivityInput, patio.ActivityQuery]{c: c,
		name: "activities", short: "Activities of a team (dashboard module)",
		one: "an activity", noun: "activity", many: "activities", overdue: "open activities whose due time has passed",
		service: func() patio.Activities {
			return patio.NewActivities(c.store.Activities()).WithAudit(c.store, patio.ResourceActivity)
		},
		types: patio.ActivityTypes, statuses: patio.ActivityStatuses,
		inputFlags: func(fs *pflag.FlagSet) {
			fs.String("title", "", "title")
			fs.String("description", "", "description (empty to clear)")
			fs.String("due-at", "", "due time, YYYY-MM-DDTHH:MM:SSZ (empty to clear)")
		},
		input: func(o *opts, r members) patio.ActivityInput {
			return patio.ActivityInput{Type: r.Type, Title: o.str("title"), Description: o.str("description"), Status: r.Status,
				DueAt: o.timestamp("due-at"), VehicleID: r.VehicleID, ClientID: r.ClientID, DealID: r.DealID}
		},
		moves: []move{
			{"start", "Start an activity (pending → in_progress)", string(patio.ActivityInProgress)},
			{"complete", "Complete an activity", string(patio.ActivityCompleted)},
			{"reopen", "Reopen an activity (back to pending; a completed one loses its completed_at)", string(patio.ActivityPending)},
		},
		to: func(status string) patio.ActivityInput { return patio.ActivityInput{Status: patio.Some(status)} },
		queryFlags: func(fs *pflag.FlagSet) {
			fs.String("due-from", "", "due at or after, YYYY-MM-DDTHH:MM:SSZ")
			fs.String("due-to", "", "due at or before, YYYY-MM-DDTHH:MM:SSZ")
		},
		query: func(o *opts, l listing) patio.ActivityQuery {
			return patio.ActivityQuery{ListQuery: l.ListQuery, Type: l.Type, DueFrom: valueOf(o.timestamp("due-from")),
				DueTo: valueOf(o.timestamp("due-to")), VehicleID: l.VehicleID, ClientID: l.ClientID, DealID: l.DealID,
				Overdue: l.Overdue}
		},
		row: printActivity,
	}.commands()
}

func printActivity(w io.Writer, a patio.Activity) {
	due := "-"
	if a.DueAt != nil {
		due = a.DueAt.String()
	}
	fmt.Fprintf(w, "%s\t%s\t%s\tdue %s\t%s\t%s\n", a.ID, a.Type, a.Status, due, a.Title, a.UpdatedAt)
}
