package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/webhook"
)

// webhooks builds the webhook use cases on the connected target. Outside the local stack,
// targets must resolve to public addresses; replay needs DELIVERY_QUEUE_URL (the stack's
// DeliveryQueueUrl output).
func (c *cli) webhooks(ctx context.Context) (webhook.Webhooks, error) {
	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return webhook.Webhooks{}, err
	}
	return app.Webhooks(cfg, c.conf)
}

func (c *cli) printWebhook(w webhook.Webhook, secret string) error {
	out := struct {
		webhook.Webhook
		Secret string `json:"secret,omitempty"`
	}{w, secret}
	return c.print(out, func(tw io.Writer) {
		fmt.Fprintf(tw, "id\t%s\nteam\t%s\nurl\t%s\nevents\t%s\nstatus\t%s\ncreated_at\t%s\nupdated_at\t%s\n",
			w.ID, w.TeamID, w.URL, strings.Join(w.Events, ","), w.Status, w.CreatedAt, w.UpdatedAt)
		if w.RotatesAt != nil {
			fmt.Fprintf(tw, "previous secret signs until\t%s\n", w.RotatesAt)
		}
		if secret != "" {
			fmt.Fprintf(tw, "secret\t%s\n(the secret is shown only now)\n", secret)
		}
	})
}

func (c *cli) webhooksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Create, inspect, enable, disable webhooks and rotate their secrets"}
	var team, url, events, id string
	var grace time.Duration

	create := &cobra.Command{Use: "create", Short: "Create a webhook (the secret is shown once)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			if _, err := c.store.Team(ctx, team); err != nil {
				return err
			}
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			w, secret, err := svc.Create(ctx, team, url, strings.Split(events, ","))
			if err != nil {
				return err
			}
			return c.printWebhook(w, secret)
		})}
	create.Flags().StringVar(&team, "team", "", "team id (required)")
	create.Flags().StringVar(&url, "url", "", "https target URL (required)")
	create.Flags().StringVar(&events, "events", "", "comma-separated event types, or '*' for all (required)")
	mustRequire(create, "team", "url", "events")

	byID := func(use, short string, f func(ctx context.Context, svc webhook.Webhooks) (webhook.Webhook, string, error)) *cobra.Command {
		sub := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
			RunE: c.run(func(ctx context.Context) error {
				svc, err := c.webhooks(ctx)
				if err != nil {
					return err
				}
				w, secret, err := f(ctx, svc)
				if err != nil {
					return err
				}
				return c.printWebhook(w, secret)
			})}
		sub.Flags().StringVar(&id, "id", "", "webhook id (required)")
		mustRequire(sub, "id")
		return sub
	}
	noSecret := func(w webhook.Webhook, err error) (webhook.Webhook, string, error) { return w, "", err }
	get := byID("get", "Show a webhook", func(ctx context.Context, svc webhook.Webhooks) (webhook.Webhook, string, error) {
		return noSecret(svc.Get(ctx, id))
	})
	enable := byID("enable", "Enable a webhook (the failure count starts afresh)", func(ctx context.Context, svc webhook.Webhooks) (webhook.Webhook, string, error) {
		return noSecret(svc.Enable(ctx, id))
	})
	disable := byID("disable", "Disable a webhook and cancel its pending deliveries", func(ctx context.Context, svc webhook.Webhooks) (webhook.Webhook, string, error) {
		return noSecret(svc.Disable(ctx, id))
	})
	rotate := byID("rotate-secret", "Give a webhook a new secret (shown once); the old one keeps signing for the grace period",
		func(ctx context.Context, svc webhook.Webhooks) (webhook.Webhook, string, error) {
			return svc.RotateSecret(ctx, id, grace)
		})
	rotate.Flags().DurationVar(&grace, "grace", webhook.DefaultGrace, "how long the old secret keeps signing X-Service-Signature")

	list := &cobra.Command{Use: "list", Short: "List a team's webhooks", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			hs, err := svc.List(ctx, team)
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
	mustRequire(list, "team")

	cmd.AddCommand(create, get, list, enable, disable, rotate)
	return cmd
}

func (c *cli) deliveriesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "deliveries", Short: "List and replay webhook deliveries"}
	var hook, status, id string

	list := &cobra.Command{Use: "list", Short: "List a webhook's deliveries with their attempts", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			ds, err := svc.Deliveries(ctx, hook, status)
			if err != nil {
				return err
			}
			return c.print(map[string]any{"deliveries": ds}, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tEVENT\tTYPE\tSTATUS\tATTEMPTS\tLAST")
				for _, d := range ds {
					last := ""
					if n := len(d.Attempts); n > 0 {
						a := d.Attempts[n-1]
						last = fmt.Sprintf("%s %d %s", a.At.Format(time.RFC3339), a.StatusCode, a.ErrorClass)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, d.EventID, d.EventType, d.Status, d.Attempt, last)
				}
			})
		})}
	list.Flags().StringVar(&hook, "webhook", "", "webhook id (required)")
	list.Flags().StringVar(&status, "status", "", "only this status: pending, succeeded, failed, cancelled or skipped")
	mustRequire(list, "webhook")

	replay := &cobra.Command{Use: "replay", Short: "Re-send a failed, cancelled or skipped delivery (same event id, new attempts)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			svc, err := c.webhooks(ctx)
			if err != nil {
				return err
			}
			d, err := svc.Replay(ctx, id)
			if err != nil {
				return err
			}
			return c.print(d, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nevent\t%s\nstatus\t%s\nseries\t%d\n", d.ID, d.EventID, d.Status, d.Series)
			})
		})}
	replay.Flags().StringVar(&id, "id", "", "delivery id (required)")
	mustRequire(replay, "id")

	cmd.AddCommand(list, replay)
	return cmd
}
