package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
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
	disabled, err := d.Rules.DisableForFailures(ctx, del.TeamID, del.WebhookID, del.FirstAttemptAt, clock(d.Now), last)
	if err != nil {
		return err
	}
	if disabled {
		log.WarnContext(ctx, "webhook disabled after 6 consecutive failed attempts")
	}
	w, err := d.Rules.Webhook(ctx, del.TeamID, del.WebhookID)
	if err != nil || !w.AlertPending {
		return err
	}
	// Cancelling is counted as it goes, so that a run interrupted and handled again adds what it
	// cancels then (a webhook enabled again meanwhile keeps its deliveries).
	if w.Status == webhook.StatusDisabled {
		n, err := webhook.CancelPending(ctx, d.Rules, del.WebhookID)
		if n > 0 {
			err = errors.Join(err, d.Rules.NoteCancelled(ctx, del.TeamID, del.WebhookID, n))
		}
		if err != nil {
			return err
		}
	}
	claimed, err := d.Rules.ClaimAlert(ctx, del.TeamID, del.WebhookID)
	if err != nil || !claimed {
		return err
	}
	w, err = d.Rules.Webhook(ctx, del.TeamID, del.WebhookID)
	if err == nil {
		err = d.sendAlert(ctx, w)
	}
	if err != nil {
		return errors.Join(err, d.Rules.ReleaseAlert(context.WithoutCancel(ctx), del.TeamID, del.WebhookID))
	}
	log.InfoContext(ctx, "alert email sent")
	return nil
}

// describe tells a failure as the emails do, in lang: its status code or error class.
func describe(f webhook.Failure, lang string) string {
	pt := lang != "en"
	if f.StatusCode != 0 {
		if pt {
			return fmt.Sprintf("status HTTP %d", f.StatusCode)
		}
		return fmt.Sprintf("HTTP status %d", f.StatusCode)
	}
	texts := map[string][2]string{
		webhook.ErrTimeout:   {"sem resposta dentro do prazo", "no answer within the timeout"},
		webhook.ErrNetwork:   {"um erro de rede (DNS ou conexão)", "a network error (DNS or connection)"},
		webhook.ErrTLS:       {"uma falha de TLS (o certificado do receptor foi recusado, ou ele não fala TLS)", "a TLS failure (the receiver's certificate was refused, or it does not speak TLS)"},
		webhook.ErrForbidden: {"um endereço de destino que não é público", "a target address that is not public"},
	}
	if t, ok := texts[f.ErrorClass]; ok {
		if pt {
			return t[0]
		}
		return t[1]
	}
	return f.ErrorClass
}

// webhookPage is the address of a webhook's page in the console, where its people enable it,
// see its deliveries and send them again; a description of where to find it when the console's
// address is not configured.
func (d *Deliverer) webhookPage(w webhook.Webhook, lang string) string {
	if d.ConsoleURL == "" {
		if lang == "en" {
			return "the webhook's page in the Patio console (Webhooks, then " + w.URL + ")"
		}
		return "a página do webhook no console Patio (Webhooks, depois " + w.URL + ")"
	}
	base := strings.TrimSuffix(strings.TrimSuffix(d.ConsoleURL, "/"), "/login")
	return base + "/webhooks/" + w.ID
}

// at formats an instant of an email, in UTC.
func at(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// emailTexts are the team emails' words, by language: format strings whose arguments come in the
// same order in every language.
type emailTexts struct {
	at, unknown             string // ", at <time>" and the unknown last failure
	alertSubject, alert     string
	warningSubject, warning string
}

var texts = map[string]emailTexts{
	"en": {at: ", at ", unknown: "unknown",
		alertSubject: "Patio: webhook disabled after 6 consecutive failed deliveries",
		alert: "Hello %s,\n\n" +
			"The webhook that posts to\n\n  %s\n\n" +
			"was disabled automatically: six consecutive delivery attempts of one event failed and no delivery " +
			"to it succeeded in the meantime.\n\n" +
			"Last failure: %s.\n" +
			"Pending deliveries cancelled: %d.\n\n" +
			"Once the receiver is fixed, enable the webhook again and send again what it missed (its failed " +
			"and cancelled deliveries, in bulk), on its page in the console:\n\n  %s\n\n" +
			"Patio\n",
		warningSubject: "Patio: webhook failing, to be disabled if nothing changes",
		warning: "Hello %s,\n\n" +
			"The last four delivery attempts of event %s (%s) to the webhook that posts to\n\n  %s\n\n" +
			"failed, and no delivery to it succeeded since the first of them. Last failure: %s.\n\n" +
			"Two attempts remain, around %s and %s. If they fail too, and no other delivery to the webhook " +
			"succeeds before then, the webhook will be disabled around %s and its pending deliveries cancelled.\n\n" +
			"Check the receiver. The webhook's page in the console shows each attempt and what is waiting:\n\n  %s\n\n" +
			"Patio\n"},
	"pt-BR": {at: ", em ", unknown: "desconhecida",
		alertSubject: "Patio: webhook desativado após 6 falhas seguidas de entrega",
		alert: "Olá, %s,\n\n" +
			"O webhook que envia para\n\n  %s\n\n" +
			"foi desativado automaticamente: seis tentativas seguidas de entrega de um evento falharam e " +
			"nenhuma entrega a ele deu certo nesse meio-tempo.\n\n" +
			"Última falha: %s.\n" +
			"Entregas pendentes canceladas: %d.\n\n" +
			"Depois de corrigir o receptor, reative o webhook e envie de novo o que ele perdeu (as entregas " +
			"falhas e canceladas, em lote), na página dele no console:\n\n  %s\n\n" +
			"Patio\n",
		warningSubject: "Patio: webhook falhando, será desativado se nada mudar",
		warning: "Olá, %s,\n\n" +
			"As quatro últimas tentativas de entrega do evento %s (%s) ao webhook que envia para\n\n  %s\n\n" +
			"falharam, e nenhuma entrega a ele deu certo desde a primeira delas. Última falha: %s.\n\n" +
			"Restam duas tentativas, por volta de %s e %s. Se elas também falharem, e nenhuma outra entrega ao " +
			"webhook der certo até lá, o webhook será desativado por volta de %s e as entregas pendentes dele, canceladas.\n\n" +
			"Confira o receptor. A página do webhook no console mostra cada tentativa e o que está esperando:\n\n  %s\n\n" +
			"Patio\n"},
}

// textsIn returns the emails' words in lang (Portuguese for any other).
func textsIn(lang string) emailTexts {
	if t, ok := texts[lang]; ok {
		return t
	}
	return texts[patio.DefaultLanguage]
}

func (d *Deliverer) sendAlert(ctx context.Context, w webhook.Webhook) error {
	team, err := d.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return err
	}
	lang := team.Lang()
	tx := textsIn(lang)
	last := tx.unknown
	if w.LastFailure != nil {
		last = describe(*w.LastFailure, lang) + tx.at + at(w.LastFailure.At)
	}
	text := fmt.Sprintf(tx.alert, team.Name, w.URL, last, w.Cancelled, d.webhookPage(w, lang))
	return d.Mailer.SendAlert(ctx, team.Email, tx.alertSubject, text)
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
	claimed, err := d.Rules.ClaimWarning(ctx, del.TeamID, del.WebhookID, del.FirstAttemptAt, now)
	if err != nil || !claimed {
		if err != nil {
			log.WarnContext(ctx, "warning email skipped", slog.String("error", err.Error()))
		}
		return
	}
	err = d.sendWarning(ctx, del, a)
	if err != nil {
		log.WarnContext(ctx, "warning email failed", slog.String("error", err.Error()))
		_ = d.Rules.ReleaseWarning(context.WithoutCancel(ctx), del.TeamID, del.WebhookID, now)
		return
	}
	log.InfoContext(ctx, "warning email sent")
}

func (d *Deliverer) sendWarning(ctx context.Context, del webhook.Delivery, a webhook.Attempt) error {
	w, err := d.Rules.Webhook(ctx, del.TeamID, del.WebhookID)
	if err != nil {
		return err
	}
	team, err := d.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return err
	}
	lang := team.Lang()
	tx := textsIn(lang)
	fifth := a.At.Add(d.Schedule.Before(5))
	sixth := fifth.Add(d.Schedule.Before(6))
	last := describe(webhook.Failure{StatusCode: a.StatusCode, ErrorClass: a.ErrorClass}, lang) + tx.at + at(a.At)
	text := fmt.Sprintf(tx.warning, team.Name, del.EventID, del.EventType, w.URL, last, at(fifth), at(sixth), at(sixth),
		d.webhookPage(w, lang))
	return d.Mailer.SendAlert(ctx, team.Email, tx.warningSubject, text)
}
