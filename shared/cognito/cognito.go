// Package cognito is the Amazon Cognito user pool adapter of the console: it implements
// patio.Identity, creating invited users with a temporary password (Cognito's own invitation
// message suppressed: the console sends its own), and signing people in server-side with the
// user-password flow. The tokens Cognito returns never leave this package: the console keeps a
// session of its own.
package cognito

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	cip "github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider/types"

	"github.com/patio-dev/patio/shared/patio"
)

// Directory is a user pool and the client the console signs in with. It is safe for concurrent
// use.
type Directory struct {
	client   *cip.Client
	poolID   string
	clientID string
}

// New returns the directory of a user pool (AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER reaches a
// local emulator).
func New(cfg aws.Config, poolID, clientID string) *Directory {
	return &Directory{client: cip.NewFromConfig(cfg), poolID: poolID, clientID: clientID}
}

// errWrongCredentials is the one answer to a wrong email or password, whatever was wrong.
var errWrongCredentials = patio.Errorf(patio.KindUnauthenticated, "wrong email or password")

// CreateUser implements patio.Identity.
func (d *Directory) CreateUser(ctx context.Context, email, temporaryPassword string) (bool, error) {
	_, err := d.client.AdminCreateUser(ctx, &cip.AdminCreateUserInput{
		UserPoolId: aws.String(d.poolID), Username: aws.String(email), TemporaryPassword: aws.String(temporaryPassword),
		MessageAction: types.MessageActionTypeSuppress,
		UserAttributes: []types.AttributeType{
			{Name: aws.String("email"), Value: aws.String(email)},
			{Name: aws.String("email_verified"), Value: aws.String("true")},
		},
	})
	var exists *types.UsernameExistsException
	if errors.As(err, &exists) {
		return false, nil
	}
	if err != nil {
		return false, patio.Internal(fmt.Errorf("cognito: create user: %w", err))
	}
	return true, nil
}

// ResetUser implements patio.Identity.
func (d *Directory) ResetUser(ctx context.Context, email, temporaryPassword string) error {
	_, err := d.client.AdminSetUserPassword(ctx, &cip.AdminSetUserPasswordInput{UserPoolId: aws.String(d.poolID),
		Username: aws.String(email), Password: aws.String(temporaryPassword), Permanent: false})
	var missing *types.UserNotFoundException
	if errors.As(err, &missing) {
		_, err = d.CreateUser(ctx, email, temporaryPassword)
		return err
	}
	if err != nil {
		return patio.Internal(fmt.Errorf("cognito: reset user: %w", err))
	}
	return nil
}

// SetPassword gives a user (created if missing) a permanent password: how the local stack keeps
// its owner's sign-in across restarts of the emulator, which forgets its users.
func (d *Directory) SetPassword(ctx context.Context, email, password string) error {
	if _, err := d.CreateUser(ctx, email, password); err != nil {
		return err
	}
	_, err := d.client.AdminSetUserPassword(ctx, &cip.AdminSetUserPasswordInput{UserPoolId: aws.String(d.poolID),
		Username: aws.String(email), Password: aws.String(password), Permanent: true})
	if err != nil {
		return patio.Internal(fmt.Errorf("cognito: set password: %w", err))
	}
	return nil
}

// SignIn implements patio.Identity with the user-password flow.
func (d *Directory) SignIn(ctx context.Context, email, password string) (patio.SignIn, error) {
	out, err := d.initiate(ctx, email, password)
	if err != nil {
		return patio.SignIn{}, err
	}
	if out.ChallengeName == types.ChallengeNameTypeNewPasswordRequired {
		return patio.SignIn{NewPasswordRequired: true, Challenge: aws.ToString(out.Session)}, nil
	}
	if out.AuthenticationResult == nil {
		return patio.SignIn{}, patio.Internal(fmt.Errorf("cognito: sign in: unexpected challenge %q", out.ChallengeName))
	}
	return patio.SignIn{}, nil
}

func (d *Directory) initiate(ctx context.Context, email, password string) (*cip.InitiateAuthOutput, error) {
	out, err := d.client.InitiateAuth(ctx, &cip.InitiateAuthInput{
		AuthFlow: types.AuthFlowTypeUserPasswordAuth, ClientId: aws.String(d.clientID),
		AuthParameters: map[string]string{"USERNAME": email, "PASSWORD": password},
	})
	if wrongCredentials(err) {
		return nil, errWrongCredentials
	}
	if err != nil {
		return nil, patio.Internal(fmt.Errorf("cognito: sign in: %w", err))
	}
	return out, nil
}

// wrongCredentials reports the errors a wrong email or password can produce.
func wrongCredentials(err error) bool {
	var notAuth *types.NotAuthorizedException
	var missing *types.UserNotFoundException
	var reset *types.PasswordResetRequiredException
	return errors.As(err, &notAuth) || errors.As(err, &missing) || errors.As(err, &reset)
}

// CompleteSignIn implements patio.Identity.
func (d *Directory) CompleteSignIn(ctx context.Context, email, challenge, newPassword string) error {
	_, err := d.client.RespondToAuthChallenge(ctx, &cip.RespondToAuthChallengeInput{
		ChallengeName: types.ChallengeNameTypeNewPasswordRequired, ClientId: aws.String(d.clientID),
		Session:            aws.String(challenge),
		ChallengeResponses: map[string]string{"USERNAME": email, "NEW_PASSWORD": newPassword},
	})
	var weak *types.InvalidPasswordException
	var expired *types.ExpiredCodeException
	switch {
	case errors.As(err, &weak):
		return weakPassword()
	case wrongCredentials(err) || errors.As(err, &expired):
		return patio.Errorf(patio.KindUnauthenticated, "the sign-in has expired; sign in again")
	case err != nil:
		return patio.Internal(fmt.Errorf("cognito: new password: %w", err))
	}
	return nil
}

// ChangePassword implements patio.Identity: it signs in with the current password and changes it
// with the access token that gives, which is then dropped.
func (d *Directory) ChangePassword(ctx context.Context, email, current, newPassword string) error {
	out, err := d.initiate(ctx, email, current)
	if patio.IsKind(err, patio.KindUnauthenticated) {
		var p patio.Problems
		p.Add(patio.InBody, "current_password", "the current password is wrong")
		return p.Err()
	}
	if err != nil {
		return err
	}
	if out.AuthenticationResult == nil {
		return patio.Internal(fmt.Errorf("cognito: change password: unexpected challenge %q", out.ChallengeName))
	}
	_, err = d.client.ChangePassword(ctx, &cip.ChangePasswordInput{AccessToken: out.AuthenticationResult.AccessToken,
		PreviousPassword: aws.String(current), ProposedPassword: aws.String(newPassword)})
	var weak *types.InvalidPasswordException
	if errors.As(err, &weak) {
		return weakPassword()
	}
	if err != nil {
		return patio.Internal(fmt.Errorf("cognito: change password: %w", err))
	}
	return nil
}

// weakPassword is the user pool's refusal of a new password, said as the console's own rule says it.
func weakPassword() error { return patio.CheckPassword("password", "") }
