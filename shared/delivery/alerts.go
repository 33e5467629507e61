package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/patio-dev/patio/shared/webhook"
)

// flushSuccess notes, before a rule that reads it, the latest success this process sent to the
// webhook.
func (d *Deliverer) flushSuccess(ctx context.Context, webhookID string) error {
	if l, ok := d.lanes.Load(webhookID); ok {
		return l.(*lane).flush(ctx)
	}
	return nil
}

// alert applies the deactivation rule after a failed series, and sends the pending alert once.
func (d *Deliverer) alert(ctx context.Context, log *slog.Logger, del webhook.Delivery) error {
	if err := d.flushSuccess(ctx, del.WebhookID); err != nil {
		return err
	}
	last := webhook.Failure{ErrorClass: webhook.ErrHTTPStatus, At: clock(d.Now)}
	if n := len(del.Attempts); n > 0 {
		a := del.Attempts[n-1]
		last = webhook.Failure{StatusCode: a.StatusCode, ErrorClass: a.ErrorClass, At: a.At}
	}
	disabled, err := d.Store.DisableForFailures(ctx, del.TeamID, del.WebhookID, del.FirstAttemptAt, clock(d.Now), last)
	if err != nil {
		return err
	}
	if disabled {
		log.WarnContext(ctx, "webhook disabled after 6 consecutive failed attempts")
	}
	w, err := d.Store.Webhook(ctx, del.TeamID, del.WebhookID)
	if err != nil || !w.AlertPending {
		return err
	}
	// Cancelling is counted as it goes, so that a run interrupted and handled again adds what it
	// cancels then (a webhook enabled again meanwhile keeps its deliveries).
	if w.Status == webhook.StatusDisabled {
		n, err := webhook.CancelPending(ctx, d.Store, del.WebhookID)
		if n > 0 {
			err = errors.Join(err, d.Store.NoteCancelled(ctx, del.TeamID, del.WebhookID, n))
		}
		if err != nil {
			return err
		}
	}
	claimed, err := d.Store.ClaimAlert(ctx, del.TeamID, del.WebhookID)
	if err != nil || !claimed {
		return err
	}
	w, err = d.Store.Webhook(ctx, del.TeamID, del.WebhookID)
	if err == nil {
		err = d.sendAlert(ctx, w)
	}
	if err != nil {
		return errors.Join(err, d.Store.ReleaseAlert(context.WithoutCancel(ctx), del.TeamID, del.WebhookID))
	}
	log.InfoContext(ctx, "alert email sent")
	return nil
}

// describe tells a failure as the emails do: its status code or error class.
func describe(f webhook.Failure) string {
	if f.StatusCode != 0 {
		return fmt.Sprintf("HTTP status %d", f.StatusCode)
	}
	switch f.ErrorClass {
	case webhook.ErrTimeout:
		return "no answer within the timeout"
	case webhook.ErrNetwork:
		return "a network error (DNS or connection)"
	case webhook.ErrTLS:
		return "a TLS failure (the receiver's certificate was refused, or it does not speak TLS)"
	case webhook.ErrForbidden:
		return "a target address that is not public"
	}
	return f.ErrorClass
}

func (d *Deliverer) sendAlert(ctx context.Context, w webhook.Webhook) error {
	team, err := d.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return err
	}
	last := "unknown"
	if w.LastFailure != nil {
		last = fmt.Sprintf("%s, at %s", describe(*w.LastFailure), w.LastFailure.At.UTC().Format(time.RFC3339))
	}
	subject := "Patio: webhook disabled after 6 consecutive failed deliveries"
	text := fmt.Sprintf("Hello %s,\n\n"+
		"The webhook %s, which posts to\n\n  %s\n\n"+
		"was disabled automatically: six consecutive delivery attempts of one event failed and no delivery "+
		"to it succeeded in the meantime.\n\n"+
		"Last failure: %s.\n"+
		"Pending deliveries cancelled: %d.\n\n"+
		"Once the receiver is fixed, enable the webhook again and re-send what it missed:\n\n"+
		"  admin webhooks enable --id %s\n"+
		"  admin deliveries replay --webhook %s --status failed,cancelled,skipped --since %s\n\n"+
		"Patio\n", team.Name, w.ID, w.URL, last, w.Cancelled, w.ID, w.ID, replaySince(w))
	return d.Mailer.SendAlert(ctx, team.Email, subject, text)
}

// replaySince is the --since of the replay the disable email suggests: the start of the failing
// series (the schedule's six attempts before the last failure), to the day.
func replaySince(w webhook.Webhook) string {
	at := time.Now().UTC()
	if w.LastFailure != nil {
		at = w.LastFailure.At.UTC()
	}
	return at.Add(-48 * time.Hour).Format(time.DateOnly)
}

// warn sends the warning email after the 4th consecutive failed attempt of a series: at most one
// per webhook a day, and only while no delivery to the webhook succeeded since the series began. A
// failed send is logged and tried again by the next 4th failure.
func (d *Deliverer) warn(ctx context.Context, log *slog.Logger, del webhook.Delivery, a webhook.Attempt) {
	if err := d.flushSuccess(ctx, del.WebhookID); err != nil {
		log.WarnContext(ctx, "warning email skipped", slog.String("error", err.Error()))
		return
	}
	now := clock(d.Now)
	claimed, err := d.Store.ClaimWarning(ctx, del.TeamID, del.WebhookID, del.FirstAttemptAt, now)
	if err != nil || !claimed {
		if err != nil {
			log.WarnContext(ctx, "warning email skipped", slog.String("error", err.Error()))
		}
		return
	}
	err = d.sendWarning(ctx, del, a)
	if err != nil {
		log.WarnContext(ctx, "warning email failed", slog.String("error", err.Error()))
		_ = d.Store.ReleaseWarning(context.WithoutCancel(ctx), del.TeamID, del.WebhookID, now)
		return
	}
	log.InfoContext(ctx, "warning email sent")
}

func (d *Deliverer) sendWarning(ctx context.Context, del webhook.Delivery, a webhook.Attempt) error {
	w, err := d.Store.Webhook(ctx, del.TeamID, del.WebhookID)
	if err != nil {
		return err
	}
	team, err := d.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return err
	}
	fifth := a.At.Add(d.Schedule.Before(5))
	sixth := fifth.Add(d.Schedule.Before(6))
	subject := "Patio: webhook failing, to be disabled if nothing changes"
	text := fmt.Sprintf("Hello %s,\n\n"+
		"The last four delivery attempts of event %s (%s) to the webhook %s, which posts to\n\n  %s\n\n"+
		"failed, and no delivery to it succeeded since the first of them. Last failure: %s, at %s.\n\n"+
		"Two attempts remain, around %s and %s. If they fail too, and no other delivery to the webhook "+
		"succeeds before then, the webhook will be disabled around %s and its pending deliveries cancelled.\n\n"+
		"Check the receiver; `admin deliveries list --webhook %s --status pending` shows what is waiting.\n\n"+
		"Patio\n", team.Name, del.EventID, del.EventType, w.ID, w.URL,
		describe(webhook.Failure{StatusCode: a.StatusCode, ErrorClass: a.ErrorClass}), a.At.UTC().Format(time.RFC3339),
		fifth.UTC().Format(time.RFC3339), sixth.UTC().Format(time.RFC3339), sixth.UTC().Format(time.RFC3339), w.ID)
	return d.Mailer.SendAlert(ctx, team.Email, subject, text)
}
