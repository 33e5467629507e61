// Package cognito is the Amazon Cognito user pool adapter of the console: it implements
// patio.Identity, creating invited users with a temporary password (Cognito's own invitation
// message suppressed: the console sends its own), and signing people in server-side with the
// user-password flow. The tokens Cognito returns never leave this package: the console keeps a
// session of its own.
package cognito

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/patio"
)

// service is Amazon Cognito user pools' API (AWS JSON 1.1), as its SDK client names it.
var service = awsjson.Service{ID: "Cognito Identity Provider", SigningName: "cognito-idp",
	EndpointPrefix: "cognito-idp", TargetPrefix: "AWSCognitoIdentityProviderService"}

// The operations the console uses. Signing in and changing a password are anonymous: the caller
// proves who it is with a password, a challenge's session or an access token.
var (
	adminCreateUser        = awsjson.Operation{Name: "AdminCreateUser"}
	adminSetUserPassword   = awsjson.Operation{Name: "AdminSetUserPassword"}
	initiateAuth           = awsjson.Operation{Name: "InitiateAuth", Anonymous: true}
	respondToAuthChallenge = awsjson.Operation{Name: "RespondToAuthChallenge", Anonymous: true}
	changePassword         = awsjson.Operation{Name: "ChangePassword", Anonymous: true}
)

// The user pool's error codes the console answers apart.
const (
	codeUsernameExists        = "UsernameExistsException"
	codeUserNotFound          = "UserNotFoundException"
	codeNotAuthorized         = "NotAuthorizedException"
	codePasswordResetRequired = "PasswordResetRequiredException"
	codeInvalidPassword       = "InvalidPasswordException"
	codeExpiredCode           = "ExpiredCodeException"
)

// challengeNewPassword is the challenge of a user signing in with a temporary password.
const challengeNewPassword = "NEW_PASSWORD_REQUIRED"

// Directory is a user pool and the client the console signs in with. It is safe for concurrent
// use.
type Directory struct {
	client   *awsjson.Client
	poolID   string
	clientID string
}

// New returns the directory of a user pool (AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER reaches a
// local emulator).
func New(cfg aws.Config, poolID, clientID string) *Directory {
	return &Directory{client: awsjson.New(cfg, service), poolID: poolID, clientID: clientID}
}

// authResult is what InitiateAuth answers: a challenge, or tokens (of which the access token
// alone is read, to change a password).
type authResult struct {
	ChallengeName        string
	Session              string
	AuthenticationResult *struct{ AccessToken string }
}

// errWrongCredentials is the one answer to a wrong email or password, whatever was wrong.
var errWrongCredentials = patio.Errorf(patio.KindUnauthenticated, "wrong email or password")

// CreateUser implements patio.Identity.
func (d *Directory) CreateUser(ctx context.Context, email, temporaryPassword string) (bool, error) {
	err := d.client.Call(ctx, adminCreateUser, map[string]any{
		"UserPoolId": d.poolID, "Username": email, "TemporaryPassword": temporaryPassword,
		"MessageAction": "SUPPRESS", // the console sends its own invitation
		"UserAttributes": []map[string]string{
			{"Name": "email", "Value": email},
			{"Name": "email_verified", "Value": "true"},
		},
	}, nil)
	if awsjson.Code(err) == codeUsernameExists {
		return false, nil
	}
	if err != nil {
		return false, patio.Internal(fmt.Errorf("cognito: create user: %w", err))
	}
	return true, nil
}

// ResetUser implements patio.Identity.
func (d *Directory) ResetUser(ctx context.Context, email, temporaryPassword string) error {
	err := d.setPassword(ctx, email, temporaryPassword, false)
	if awsjson.Code(err) == codeUserNotFound {
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
	if err := d.setPassword(ctx, email, password, true); err != nil {
		return patio.Internal(fmt.Errorf("cognito: set password: %w", err))
	}
	return nil
}

func (d *Directory) setPassword(ctx context.Context, email, password string, permanent bool) error {
	return d.client.Call(ctx, adminSetUserPassword, map[string]any{
		"UserPoolId": d.poolID, "Username": email, "Password": password, "Permanent": permanent,
	}, nil)
}

// SignIn implements patio.Identity with the user-password flow.
func (d *Directory) SignIn(ctx context.Context, email, password string) (patio.SignIn, error) {
	out, err := d.initiate(ctx, email, password)
	if err != nil {
		return patio.SignIn{}, err
	}
	if out.ChallengeName == challengeNewPassword {
		return patio.SignIn{NewPasswordRequired: true, Challenge: out.Session}, nil
	}
	if out.AuthenticationResult == nil {
		return patio.SignIn{}, patio.Internal(fmt.Errorf("cognito: sign in: unexpected challenge %q", out.ChallengeName))
	}
	return patio.SignIn{}, nil
}

func (d *Directory) initiate(ctx context.Context, email, password string) (authResult, error) {
	var out authResult
	err := d.client.Call(ctx, initiateAuth, map[string]any{
		"AuthFlow": "USER_PASSWORD_AUTH", "ClientId": d.clientID,
		"AuthParameters": map[string]string{"USERNAME": email, "PASSWORD": password},
	}, &out)
	if wrongCredentials(err) {
		return out, errWrongCredentials
	}
	if err != nil {
		return out, patio.Internal(fmt.Errorf("cognito: sign in: %w", err))
	}
	return out, nil
}

// wrongCredentials reports the errors a wrong email or password can produce.
func wrongCredentials(err error) bool {
	switch awsjson.Code(err) {
	case codeNotAuthorized, codeUserNotFound, codePasswordResetRequired:
		return true
	}
	return false
}

// CompleteSignIn implements patio.Identity.
func (d *Directory) CompleteSignIn(ctx context.Context, email, challenge, newPassword string) error {
	err := d.client.Call(ctx, respondToAuthChallenge, map[string]any{
		"ChallengeName": challengeNewPassword, "ClientId": d.clientID, "Session": challenge,
		"ChallengeResponses": map[string]string{"USERNAME": email, "NEW_PASSWORD": newPassword},
	}, nil)
	switch {
	case awsjson.Code(err) == codeInvalidPassword:
		return weakPassword()
	case wrongCredentials(err) || awsjson.Code(err) == codeExpiredCode:
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
	err = d.client.Call(ctx, changePassword, map[string]any{
		"AccessToken": out.AuthenticationResult.AccessToken, "PreviousPassword": current, "ProposedPassword": newPassword,
	}, nil)
	if awsjson.Code(err) == codeInvalidPassword {
		return weakPassword()
	}
	if err != nil {
		return patio.Internal(fmt.Errorf("cognito: change password: %w", err))
	}
	return nil
}

// weakPassword is the user pool's refusal of a new password, said as the console's own rule says it.
func weakPassword() error { return patio.CheckPassword("password", "") }
