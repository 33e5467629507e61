// Package consoleapp builds the console (package console) from app.Config: its store, the user
// pool (Cognito), the invitation mailer (SES), the webhook use cases with their queue and target
// check, and the team use cases, the same ones the operators' tool calls. It is apart from package
// app so that the API functions link none of this (shared/archtest keeps it so).
package consoleapp

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/cognito"
	"github.com/patio-dev/patio/shared/console"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/s3photos"
	"github.com/patio-dev/patio/shared/sesmail"
	"github.com/patio-dev/patio/shared/sqsqueue"
	"github.com/patio-dev/patio/shared/webhook"
)

// Options are what differs between the console on AWS and on the local stack.
type Options struct {
	// KeyPrefix starts the API keys the console creates: patio.LiveKeyPrefix (the default) on AWS,
	// patio.TestKeyPrefix on the local stack.
	KeyPrefix string
}

// Handler returns the console on the configured tables, user pool, queue and mailer. It fails when
// c lacks what ConsoleFunction needs.
func Handler(cfg aws.Config, c app.Config, logger *slog.Logger, o Options) (*console.Console, error) {
	if err := c.Require(app.ConsoleFunction); err != nil {
		return nil, err
	}
	sender, err := workers.Sender(c)
	if err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	accounts, members := accountdb.NewAccounts(store.DB()), accountdb.NewMembers(store.DB())
	sessions := accountdb.NewSessions(store.DB())
	identity := cognito.New(cfg, c.UserPoolID, c.UserPoolClientID)
	hooks := webhookdb.New(store.DB())
	webhooks := webhook.Webhooks{Store: hooks, Log: hooks, Queue: sqsqueue.New(cfg, c.QueueURL, c.MaxHop), Targets: sender, Audit: store}
	vehicles := patio.NewVehicles(store.Vehicles()).WithAudit(store, patio.ResourceVehicle)
	var photos *patio.Photos
	var uploadOrigin string
	if c.PhotosBucket != "" {
		bucket := s3photos.New(cfg, c.PhotosBucket, c.PhotosURL)
		photos, uploadOrigin = new(patio.NewPhotos(vehicles, bucket)), origin(bucket.UploadURL())
	}
	return console.New(console.Deps{
		Sessions: sessionStore{sessions, members},
		SignIns:  sessions,
		Forms:    sessions,
		Identity: identity,
		Members: patio.Members{Store: members, Teams: accounts, Identity: identity, Mail: sesmail.New(cfg, c.AlertSender),
			Audit: store},
		Teams:      patio.Teams{Store: accounts, Audit: store},
		Keys:       patio.Keys{Store: accounts, Audit: store, Prefix: o.KeyPrefix},
		Webhooks:   webhooks,
		Deliveries: webhooks,
		Audit:      store,
		Activities: patio.NewActivities(store.Activities()).WithAudit(store, patio.ResourceActivity),
		Financial:  patio.NewFinancial(store.Financial(), accounts.Team).WithAudit(store, patio.ResourceFinancial),
		// The API's records, which the console shows and moves with the same use cases, each change
		// in the audit log.
		Records: console.Records{Vehicles: vehicles,
			Clients: patio.NewClients(store.Clients()).WithAudit(store, patio.ResourceClient),
			Deals:   patio.NewDeals(store.Deals(), store.Vehicles()).WithAudit(store, patio.ResourceDeal)},
		Usage:        accountdb.NewCounters(store.DB()),
		PhotosOrigin: origin(c.PhotosURL),
		Photos:       photos,
		// A vehicle's page sends several photos at once from its script, straight to the bucket.
		PhotosUploadOrigin: uploadOrigin,
		Logger:             logger,
	}), nil
}

// origin is a URL's scheme and host ("" for none).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// sessionStore is the console's sessions, and the memberships a sign-in starts them with.
type sessionStore struct {
	*accountdb.Sessions
	*accountdb.Members
}

// identityOverrides are the variables that point the Cognito client elsewhere than Cognito itself:
// the local stack sets them to reach moto, whose token signing key is public, so a function on AWS
// refuses to start with any of them.
var identityOverrides = []string{"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER", "AWS_ENDPOINT_URL"}

// RefuseIdentityOverrides fails when a variable that redirects the user pool client is set
// through lookup, even to an empty value.
func RefuseIdentityOverrides(lookup func(string) (string, bool)) error {
	for _, name := range identityOverrides {
		if _, set := lookup(name); set {
			return fmt.Errorf("consoleapp: %s is set; the console signs people in with Cognito itself, never an emulator, outside the local stack", name)
		}
	}
	return nil
}

// Lambda builds the console function's API Gateway handler from the environment, its AWS
// configuration from the Lambda environment's variables (app.LambdaBuild). It refuses the
// local-only knobs (app.RefuseLocalKnobs) and the user pool endpoint overrides.
func Lambda(ctx context.Context, logger *slog.Logger) (app.APIGatewayHandler, error) {
	if err := app.RefuseLocalKnobs(os.LookupEnv); err != nil {
		return nil, err
	}
	if err := RefuseIdentityOverrides(os.LookupEnv); err != nil {
		return nil, err
	}
	return app.LambdaBuild(ctx, logger, func(cfg aws.Config, c app.Config, logger *slog.Logger) (app.APIGatewayHandler, error) {
		h, err := Handler(cfg, c, logger, Options{})
		if err != nil {
			return nil, err
		}
		return httpadapter.New(h).ProxyWithContext, nil
	}, app.ConsoleFunction)
}
