// Package sesmail is the Amazon SES (v2) adapter that sends Patio's emails: the webhook alerts and
// the console's invitations. It calls SES's API itself (package awsjson) rather than through the
// SDK's SES client, which would add 2.4 MB to the console's binary for the two operations used.
package sesmail

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/patio"
)

// service is the SES v2 API (REST-JSON), as its SDK client names it.
var service = awsjson.Service{ID: "SESv2", SigningName: "ses", EndpointPrefix: "email"}

// The operations the mailer uses.
var (
	sendEmail           = awsjson.Operation{Name: "SendEmail", Method: "POST", Path: "/v2/email/outbound-emails"}
	createEmailIdentity = awsjson.Operation{Name: "CreateEmailIdentity", Method: "POST", Path: "/v2/email/identities"}
)

// Mailer sends plain-text emails from one verified sender identity.
type Mailer struct {
	client *awsjson.Client
	from   string
}

// New returns a mailer on the given AWS configuration (AWS_ENDPOINT_URL_SESV2 reaches a local
// emulator) sending from the address from, which SES must have verified.
func New(cfg aws.Config, from string) *Mailer {
	return &Mailer{client: awsjson.New(cfg, service), from: from}
}

// SendAlert sends one plain-text email to to.
func (m *Mailer) SendAlert(ctx context.Context, to, subject, text string) error {
	return m.send(ctx, "alert", to, subject, text)
}

// SendInvitation implements patio.Mailer: the invitation, as plain text.
func (m *Mailer) SendInvitation(ctx context.Context, inv patio.Invitation) error {
	subject, text := inv.Message()
	return m.send(ctx, "invitation", inv.To, subject, text)
}

func (m *Mailer) send(ctx context.Context, what, to, subject, text string) error {
	utf8 := func(s string) map[string]string { return map[string]string{"Data": s, "Charset": "UTF-8"} }
	err := m.client.Call(ctx, sendEmail, map[string]any{
		"FromEmailAddress": m.from,
		"Destination":      map[string][]string{"ToAddresses": {to}},
		"Content":          map[string]any{"Simple": map[string]any{"Subject": utf8(subject), "Body": map[string]any{"Text": utf8(text)}}},
	}, nil)
	if err != nil {
		return fmt.Errorf("sesmail: send %s: %w", what, err)
	}
	return nil
}

// VerifySender creates the sender identity (the local stack does this; on AWS the identity is
// verified once by an operator). An identity that exists already is fine.
func (m *Mailer) VerifySender(ctx context.Context) error {
	err := m.client.Call(ctx, createEmailIdentity, map[string]string{"EmailIdentity": m.from}, nil)
	if err != nil && awsjson.Code(err) != "AlreadyExistsException" {
		return fmt.Errorf("sesmail: create identity %s: %w", m.from, err)
	}
	return nil
}
