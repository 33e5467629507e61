// Package console is the dealership's web application: server-rendered HTML pages under /console/
// (html/template, embedded with their stylesheet in package render), where a team's own people
// sign in, manage their team and roles, webhooks and deliveries, API keys, activities and
// financial records, and read the audit log. Every page and form works without JavaScript; the pages carry none.
//
// It is an adapter, like shared/httpapi: it decodes forms into typed values and calls the same use
// cases as the operators' tool (patio.Members, patio.Keys, patio.Teams, webhook.Webhooks), which
// hold the rules and write the audit log. What it owns is the web's own part: sessions in an
// HttpOnly cookie (only their hash stored), the role checks of every request, cross-site refusal,
// one-time form tokens, the two languages (package locale) and the security headers.
//
// Its layout: the route table in routes.go, each route stating what it requires, and the checks of
// every request in request.go; one file per screen action, named for it (webhook_create.go,
// key_revoke.go, login.go), and each module's shared helpers in a file named for the module
// (webhook.go, deal.go). Beside it, package render holds the templates, their helpers and the
// embedded stylesheet and script; package session the cookies, a session's start and loading, the
// request's language and the cross-site check; package form the reading of every form into typed
// values; package locale the two languages.
//
// The same http.Handler runs behind API Gateway (functions/console, through
// aws-lambda-go-api-proxy) and on the local stack (cmd/local, port 3001). Links and redirects are
// built from the request's base path, so the pages work under API Gateway's stage prefix
// (/prod/console/...) as well as at the root of a custom domain.
package console

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// SignIns holds the sign-ins waiting for a new password (Cognito's challenge), by the hash of
// their cookie.
type SignIns interface {
	PutSignIn(ctx context.Context, hash string, p patio.PendingSignIn) error
	SignIn(ctx context.Context, hash string, now time.Time) (patio.PendingSignIn, error)
	DeleteSignIn(ctx context.Context, hash string) error
}

// FormTokens holds the one-time tokens of the console's forms, by their hash.
type FormTokens interface {
	// ClaimForm claims a one-time form token: true for its first post; else what that post
	// created.
	ClaimForm(ctx context.Context, hash string, now, expires time.Time) (bool, string, error)
	SetFormResult(ctx context.Context, hash, result string) error
	ReleaseForm(ctx context.Context, hash string) error
}

// Webhooks is what the webhook screens call of the webhook use cases (webhook.Webhooks): a
// team's webhooks, their settings, secrets and test events.
type Webhooks interface {
	Create(ctx context.Context, teamID string, set webhook.Settings) (webhook.Webhook, string, error)
	GetOfTeam(ctx context.Context, teamID, id string) (webhook.Webhook, error)
	List(ctx context.Context, teamID string, all bool) ([]webhook.Webhook, error)
	Update(ctx context.Context, id string, c webhook.SettingsChange) (webhook.Webhook, error)
	Enable(ctx context.Context, id string) (webhook.Webhook, error)
	Disable(ctx context.Context, id string) (webhook.Webhook, error)
	Delete(ctx context.Context, id string) (webhook.Webhook, error)
	RotateSecret(ctx context.Context, id string, grace time.Duration) (webhook.Webhook, string, error)
	Test(ctx context.Context, id, typ string) (webhook.Delivery, error)
}

// Deliveries is what the delivery screens call of the webhook use cases (webhook.Webhooks): the
// deliveries' lists, one delivery, and replays.
type Deliveries interface {
	ListWebhookDeliveries(ctx context.Context, w webhook.Webhook, q webhook.DeliveryQuery) (webhook.DeliveryPage, error)
	ListTeamDeliveries(ctx context.Context, teamID string, q webhook.DeliveryQuery) (webhook.DeliveryPage, error)
	Delivery(ctx context.Context, id string) (webhook.Delivery, error)
	Replay(ctx context.Context, id string) (webhook.Delivery, error)
	CountReplayable(ctx context.Context, webhookID string, statuses []string, since, until time.Time) (int, error)
	ReplayAll(ctx context.Context, webhookID string, statuses []string, since, until time.Time) (int, error)
}

// Usage reads a team's API request counters.
type Usage interface {
	// RequestsCounted returns how many requests of the team the minute and the UTC day of now
	// have counted.
	RequestsCounted(ctx context.Context, teamID string, now time.Time) (minute, day int, err error)
}

// Deps are the console's collaborators.
type Deps struct {
	// Sessions, SignIns and Forms are what the console keeps for itself: its sessions (with the
	// memberships they are loaded with), pending sign-ins and one-time form tokens.
	Sessions   session.Store
	SignIns    SignIns
	Forms      FormTokens
	Identity   patio.Identity
	Members    patio.Members
	Teams      patio.Teams
	Keys       patio.Keys
	Webhooks   Webhooks
	Deliveries Deliveries
	Audit      patio.AuditLog
	// Activities and Financial are the console's modules' use cases (audited).
	Activities patio.Activities
	Financial  patio.Financial
	// Records are the public API's records, which activities and financial records link to.
	Records Records
	// Usage reads the team's API requests counted so far this minute and today.
	Usage Usage
	// PhotosOrigin is where the photos' variants are served from (PHOTOS_URL's scheme and host):
	// pages show vehicles' covers from there. Empty shows none.
	PhotosOrigin string
	// Photos are the vehicles' photo use cases (audited through Records.Vehicles); nil when the
	// console has no photos' bucket: a vehicle's page then only shows its photos.
	Photos *patio.Photos
	// PhotosUploadOrigin is where browsers send photos' bytes (the bucket's scheme and host): a
	// vehicle's page's script may reach it. Empty leaves the page's one-photo form alone.
	PhotosUploadOrigin string
	Logger             *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Console is the console's http.Handler.
type Console struct {
	d   Deps
	mux *http.ServeMux
}

// New returns the console on its collaborators.
func New(d Deps) *Console {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	c := &Console{d: d, mux: http.NewServeMux()}
	c.routes()
	return c
}
