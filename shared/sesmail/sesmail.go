// Package sesmail is the Amazon SES (v2) adapter that sends Patio's emails: the webhook alerts and
// the console's invitations.
package sesmail

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/patio-dev/patio/shared/patio"
)

// Mailer sends plain-text emails from one verified sender identity.
type Mailer struct {
	client *sesv2.Client
	from   string
}

// New returns a mailer on the given AWS configuration (AWS_ENDPOINT_URL_SESV2 reaches a local
// emulator) sending from the address from, which SES must have verified.
func New(cfg aws.Config, from string) *Mailer {
	return &Mailer{client: sesv2.NewFromConfig(cfg), from: from}
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
	_, err := m.client.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(m.from),
		Destination:      &types.Destination{ToAddresses: []string{to}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(subject), Charset: aws.String("UTF-8")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String(text), Charset: aws.String("UTF-8")}},
		}},
	})
	if err != nil {
		return fmt.Errorf("sesmail: send %s: %w", what, err)
	}
	return nil
}

// VerifySender creates the sender identity (the local stack does this; on AWS the identity is
// verified once by an operator). An identity that exists already is fine.
func (m *Mailer) VerifySender(ctx context.Context) error {
	_, err := m.client.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String(m.from)})
	var exists *types.AlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("sesmail: create identity %s: %w", m.from, err)
	}
	return nil
}
