package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// webhooks builds the webhook use cases on the connected target. Outside the local stack,
// targets must resolve to public addresses; replay needs DELIVERY_QUEUE_URL (the stack's
// DeliveryQueueUrl output).
func (c *cli) webhooks(ctx context.Context) (webhook.Webhooks, error) {
	cfg, err := awsconfig.Load(ctx)
	if err != nil {
		return webhook.Webhooks{}, err
	}
	w, err := workers.Webhooks(cfg, c.conf)
	w.Audit = c.store
	return w, err
}

func (c *cli) printWebhook(w webhook.Webhook, secret string) error {
	out := struct {
		webhook.Webhook
		Secret string `json:"secret,omitempty"`
	}{w, secret}
	return c.print(out, func(tw io.Writer) {
		rate := "none"
		if w.MaxRate != 0 {
			rate = fmt.Sprintf("%d requests/s", w.MaxRate)
		}
		fmt.Fprintf(tw, "id\t%s\nteam\t%s\nurl\t%s\nevents\t%s\nstatus\t%s\nmax_rate\t%s\ncreated_at\t%s\nupdated_at\t%s\n",
			w.ID, w.TeamID, w.URL, strings.Join(w.Events, ","), w.Status, rate, w.CreatedAt, w.UpdatedAt)
		for _, p := range w.Previous {
			fmt.Fprintf(tw, "a previous secret signs until\t%s\n", p.Until)
		}
		if w.LastFailure != nil {
			fmt.Fprintf(tw, "disabled after\t%s %d at %s (%d pending deliveries cancelled)\n", w.LastFailure.ErrorClass,
				w.LastFailure.StatusCode, w.LastFailure.At.Format(time.RFC3339), w.Cancelled)
		}
		if secret != "" {
			fmt.Fprintf(tw, "secret\t%s\n(the secret is shown only now)\n", secret)
		}
	})
}

// maxRateHelp describes the --max-rate flag of webhooks create and update.
var maxRateHelp = fmt.Sprintf("at most this many requests start in any one second (1 to %d), or none", webhook.MaxRateLimit)

func (c *cli) webhooksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Create, inspect, edit, test, enable, disable and delete webhooks; rotate their secrets"}
	noSecret := func(w webhook.Webhook, err error) (webhook.Webhook, string, error) { return w, "", err }
	get := c.webhookByID("get", "Show a webhook", func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error) {
		return noSecret(svc.Get(ctx, id))
	})
	enable := c.webhookByID("enable", "Enable a webhook (the failure count starts afresh)", func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error) {
		return noSecret(svc.Enable(ctx, id))
	})
	disable := c.webhookByID("disable", "Disable a webhook and cancel its pending deliveries", func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error) {
		return noSecret(svc.Disable(ctx, id))
	})
	del := c.webhookByID("delete", "Delete a webhook for good: it receives nothing more; its pending deliveries are cancelled",
		func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error) {
			return noSecret(svc.Delete(ctx, id))
		})
	cmd.AddCommand(c.webhookCreateCmd(), get, c.webhookListCmd(), c.webhookUpdateCmd(), c.webhookTestCmd(), enable, disable,
		c.webhookRotateCmd(), del)
	return cmd
}

func (c *cli) webhookCreateCmd() *cobra.Command {
	var team, url, events, maxRate, description string
	create := &cobra.Command{Use: "create", Short: "Create a webhook (the secret is shown once)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			if _, err := accountdb.NewAccounts(c.store.DB()).Team(ctx, team); err != nil {
				return err
			}
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			rate, err := webhook.ParseRate(maxRate)
			if err != nil {
				return err
			}
			w, secret, err := svc.Create(ctx, team, webhook.Settings{URL: url, Events: strings.Split(events, ","), MaxRate: rate,
				Description: description})
			if err != nil {
				return err
			}
			return c.printWebhook(w, secret)
		})}
	create.Flags().StringVar(&team, "team", "", "team id (required)")
	create.Flags().StringVar(&url, "url", "", "https target URL (required)")
	create.Flags().StringVar(&events, "events", "", "comma-separated event types, or '*' for all (required)")
	create.Flags().StringVar(&maxRate, "max-rate", "none", maxRateHelp)
	create.Flags().StringVar(&description, "description", "", "what the webhook is for, for people (optional)")
	mustRequire(create, "team", "url", "events")
	return create
}

// webhookByID is a command on one webhook (--id): f's webhook is printed, with its secret when
// f returns one.
func (c *cli) webhookByID(use, short string, f func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error)) *cobra.Command {
	var id string
	sub := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			w, secret, err := f(ctx, svc, id)
			if err != nil {
				return err
			}
			return c.printWebhook(w, secret)
		})}
	sub.Flags().StringVar(&id, "id", "", "webhook id (required)")
	mustRequire(sub, "id")
	return sub
}

func (c *cli) webhookRotateCmd() *cobra.Command {
	var grace time.Duration
	rotate := c.webhookByID("rotate-secret", "Give a webhook a new secret (shown once); the old one keeps signing for the grace period",
		func(ctx context.Context, svc webhook.Webhooks, id string) (webhook.Webhook, string, error) {
			return svc.RotateSecret(ctx, id, grace)
		})
	rotate.Flags().DurationVar(&grace, "grace", webhook.DefaultGrace,
		"how long the replaced secret keeps signing (at most three secrets sign at once; 0: at once)")
	return rotate
}

func (c *cli) webhookUpdateCmd() *cobra.Command {
	var id, url, events, maxRate, description string
	var update *cobra.Command
	update = &cobra.Command{Use: "update", Short: "Change a webhook's URL (checked again), its events, its max rate or its description", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			var u *string
			var evs []string
			if update.Flags().Changed("url") {
				u = &url
			}
			if update.Flags().Changed("events") {
				evs = strings.Split(events, ",")
			}
			var rate *webhook.Rate
			if update.Flags().Changed("max-rate") {
				r, err := webhook.ParseRate(maxRate)
				if err != nil {
					return err
				}
				rate = &r
			}
			ch := webhook.SettingsChange{URL: u, Events: evs, MaxRate: rate}
			if update.Flags().Changed("description") {
				ch.Description = &description
			}
			w, err := svc.Update(ctx, id, ch)
			if err != nil {
				return err
			}
			return c.printWebhook(w, "")
		})}
	update.Flags().StringVar(&id, "id", "", "webhook id (required)")
	update.Flags().StringVar(&url, "url", "", "new https target URL")
	update.Flags().StringVar(&events, "events", "", "new comma-separated event types, or '*' for all")
	update.Flags().StringVar(&maxRate, "max-rate", "", maxRateHelp)
	update.Flags().StringVar(&description, "description", "", "new description (empty: none)")
	mustRequire(update, "id")
	return update
}

func (c *cli) webhookTestCmd() *cobra.Command {
	var id, typ string
	test := &cobra.Command{Use: "test", Short: "Send a signed sample event through the normal delivery path and show the attempt",
		Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			return c.testWebhook(ctx, svc, id, typ)
		})}
	test.Flags().StringVar(&id, "id", "", "webhook id (required)")
	test.Flags().StringVar(&typ, "type", webhook.VehicleCreated, "event type of the sample")
	mustRequire(test, "id")
	return test
}

func (c *cli) webhookListCmd() *cobra.Command {
	var team string
	var all bool
	list := &cobra.Command{Use: "list", Short: "List a team's webhooks", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			hs, err := svc.List(ctx, team, all)
			if err != nil {
				return err
			}
			return c.print(map[string]any{"webhooks": hs}, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tSTATUS\tEVENTS\tURL")
				for _, h := range hs {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", h.ID, h.Status, strings.Join(h.Events, ","), h.URL)
				}
			})
		})}
	list.Flags().StringVar(&team, "team", "", "team id (required)")
	list.Flags().BoolVar(&all, "all", false, "deleted webhooks too")
	mustRequire(list, "team")
	return list
}

// parseWhen reads a --since or --until value: an RFC 3339 time, a date (its UTC midnight), or a
// Go duration meaning that long ago ("24h"). "" is no bound.
func parseWhen(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, patio.Invalidf("%s must be an RFC 3339 time, a date (YYYY-MM-DD) or a duration ago (24h)", flag)
}

func (c *cli) printDeliveries(page webhook.DeliveryPage) error {
	return c.print(page, func(w io.Writer) {
		fmt.Fprintln(w, "ID\tEVENT\tTYPE\tSTATUS\tATTEMPTS\tCREATED\tLAST")
		for _, d := range page.Deliveries {
			last := ""
			if n := len(d.Attempts); n > 0 {
				a := d.Attempts[n-1]
				last = fmt.Sprintf("%s %d %s %dms", a.At.Format(time.RFC3339), a.StatusCode, a.ErrorClass, a.DurationMs)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.EventID, d.EventType, d.Status, d.Attempt,
				d.CreatedAt.Format(time.RFC3339), last)
		}
		if page.NextCursor != "" {
			fmt.Fprintf(w, "(more: --cursor %s)\n", page.NextCursor)
		}
	})
}

// testWebhook sends a test event and waits for its attempt (the deliverer's: on AWS the
// deliverer function, on the local stack `make run`), then prints it.
func (c *cli) testWebhook(ctx context.Context, svc webhook.Webhooks, id, typ string) error {
	d, err := svc.Test(ctx, id, typ)
	if err != nil {
		return err
	}
	wait := c.conf.WebhookTimeout + 30*time.Second
	deadline := time.Now().Add(wait)
	for {
		if d, err = svc.Delivery(ctx, d.ID); err != nil {
			return err
		}
		if len(d.Attempts) > 0 && d.Status != webhook.DeliveryPending {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("test delivery %s was queued but not attempted within %s: is the deliverer running?", d.ID, wait)
		}
		time.Sleep(200 * time.Millisecond)
	}
	a := d.Attempts[len(d.Attempts)-1]
	out := map[string]any{"delivery_id": d.ID, "event_id": d.EventID, "event_type": d.EventType, "status": d.Status,
		"status_code": a.StatusCode, "duration_ms": a.DurationMs, "error_class": a.ErrorClass, "response_body": a.ResponseBody}
	return c.print(out, func(w io.Writer) {
		fmt.Fprintf(w, "delivery\t%s\nevent\t%s %s\nresult\t%s\nstatus code\t%d\nduration\t%d ms\n", d.ID, d.EventID,
			d.EventType, d.Status, a.StatusCode, a.DurationMs)
		if a.ErrorClass != "" {
			fmt.Fprintf(w, "error class\t%s\n", a.ErrorClass)
		}
		fmt.Fprintf(w, "response\t%.500q\n", a.ResponseBody)
	})
}

func (c *cli) deliveriesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "deliveries", Short: "List, inspect and replay webhook deliveries"}
	cmd.AddCommand(c.deliveryListCmd(), c.deliveryGetCmd(), c.deliveryReplayCmd())
	return cmd
}

func (c *cli) deliveryListCmd() *cobra.Command {
	var hook, status, since, until, cursor string
	var limit int
	list := &cobra.Command{Use: "list", Short: "List a webhook's deliveries, newest first, a page at a time", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			if limit < 1 {
				return patio.Invalidf("limit must be between 1 and %d", webhook.MaxDeliveryLimit)
			}
			q := webhook.DeliveryQuery{Limit: limit, Cursor: cursor}
			if q.Statuses, err = webhook.ParseDeliveryStatuses(status); err != nil {
				return err
			}
			now := time.Now()
			if q.Since, err = parseWhen("since", since, now); err != nil {
				return err
			}
			if q.Until, err = parseWhen("until", until, now); err != nil {
				return err
			}
			page, err := svc.ListDeliveries(ctx, hook, q)
			if err != nil {
				return err
			}
			return c.printDeliveries(page)
		})}
	list.Flags().StringVar(&hook, "webhook", "", "webhook id (required)")
	list.Flags().StringVar(&status, "status", "", "only these statuses, comma-separated: pending, succeeded, failed, cancelled, skipped")
	list.Flags().StringVar(&since, "since", "", "only deliveries created at or after: RFC 3339 time, date, or duration ago (24h)")
	list.Flags().StringVar(&until, "until", "", "only deliveries created at or before: RFC 3339 time, date, or duration ago")
	list.Flags().IntVar(&limit, "limit", webhook.DefaultDeliveryLimit, fmt.Sprintf("deliveries per page (1 to %d)", webhook.MaxDeliveryLimit))
	list.Flags().StringVar(&cursor, "cursor", "", "the next page: the next_cursor a previous page printed")
	mustRequire(list, "webhook")
	return list
}

func (c *cli) deliveryGetCmd() *cobra.Command {
	var id string
	get := &cobra.Command{Use: "get", Short: "Show a delivery with every attempt of every series, response excerpts included", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			d, err := svc.Delivery(ctx, id)
			if err != nil {
				return err
			}
			return c.print(d, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nwebhook\t%s\nevent\t%s %s\nstatus\t%s\nseries\t%d\ncreated_at\t%s\n",
					d.ID, d.WebhookID, d.EventID, d.EventType, d.Status, d.Series, d.CreatedAt.Format(time.RFC3339))
				for _, a := range d.Attempts {
					fmt.Fprintf(w, "attempt %d.%d\t%s status %d %s %d ms\n", a.Series, a.N, a.At.Format(time.RFC3339), a.StatusCode, a.ErrorClass, a.DurationMs)
					if a.ResponseBody != "" {
						fmt.Fprintf(w, "\tresponse: %.200q\n", a.ResponseBody)
					}
				}
			})
		})}
	get.Flags().StringVar(&id, "id", "", "delivery id (required)")
	mustRequire(get, "id")
	return get
}

func (c *cli) deliveryReplayCmd() *cobra.Command {
	var hook, status, id, since, until string
	replay := &cobra.Command{Use: "replay",
		Short: "Re-send a finished delivery (--id; a delivered one too), or a webhook's failed, cancelled or skipped ones (--webhook --status): same event ids, new attempts",
		Args:  cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			switch {
			case id != "" && hook != "":
				return patio.Invalidf("replay takes --id, or --webhook with --status, not both")
			case id != "":
				d, err := svc.Replay(ctx, id)
				if err != nil {
					return err
				}
				return c.print(d, func(w io.Writer) {
					fmt.Fprintf(w, "id\t%s\nevent\t%s\nstatus\t%s\nseries\t%d\n", d.ID, d.EventID, d.Status, d.Series)
				})
			case hook == "" || status == "":
				return patio.Invalidf("replay needs --id, or --webhook and --status (failed, cancelled, skipped)")
			}
			statuses, err := webhook.ParseDeliveryStatuses(status)
			if err != nil {
				return err
			}
			now := time.Now()
			from, err := parseWhen("since", since, now)
			if err != nil {
				return err
			}
			to, err := parseWhen("until", until, now)
			if err != nil {
				return err
			}
			n, err := svc.ReplayAll(ctx, hook, statuses, from, to)
			if err != nil {
				return err
			}
			return c.print(map[string]any{"webhook_id": hook, "replayed": n}, func(w io.Writer) {
				fmt.Fprintf(w, "replayed\t%d\n", n)
			})
		})}
	replay.Flags().StringVar(&id, "id", "", "one delivery id")
	replay.Flags().StringVar(&hook, "webhook", "", "every matching delivery of this webhook (with --status)")
	replay.Flags().StringVar(&status, "status", "", "with --webhook: failed, cancelled and/or skipped, comma-separated")
	replay.Flags().StringVar(&since, "since", "", "with --webhook: only deliveries created at or after (RFC 3339, date, or duration ago)")
	replay.Flags().StringVar(&until, "until", "", "with --webhook: only deliveries created at or before")
	return replay
}
