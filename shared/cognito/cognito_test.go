package cognito_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/cognito"
	"github.com/patio-dev/patio/shared/patio"
)

// directory returns the template's user pool in moto (created by testenv.Tables) and a fresh email.
func directory(t *testing.T) (*cognito.Directory, string) {
	t.Helper()
	testenv.Tables(t)
	pool, client := os.Getenv("COGNITO_USER_POOL_ID"), os.Getenv("COGNITO_CLIENT_ID")
	if pool == "" || client == "" {
		t.Fatal("COGNITO_USER_POOL_ID or COGNITO_CLIENT_ID not set by the template")
	}
	return cognito.New(testenv.AWSConfig(t), pool, client), fmt.Sprintf("ana+%d@dealer.example", time.Now().UnixNano())
}

const (
	temporary = "Temporary-Pass-1"
	chosen    = "Chosen-Pass-2024"
	changed   = "Changed-Pass-2025"
)

// An invited user signs in with the temporary password, must choose a new one, then signs in with
// it and changes it; a wrong password or an unknown email gets the one generic refusal.
func TestInvitationToPasswordChange(t *testing.T) {
	d, email := directory(t)
	ctx := context.Background()

	created, err := d.CreateUser(ctx, email, temporary)
	if err != nil || !created {
		t.Fatalf("CreateUser = %v, %v; want created", created, err)
	}
	if created, err := d.CreateUser(ctx, email, "Another-Pass-99"); err != nil || created {
		t.Errorf("CreateUser again = %v, %v; want false (exists), no error", created, err)
	}
	for _, tt := range []struct{ name, email, password string }{
		{"wrong password", email, "Wrong-Pass-0000"},
		{"unknown email", "nobody+" + email, temporary},
	} {
		if _, err := d.SignIn(ctx, tt.email, tt.password); !patio.IsKind(err, patio.KindUnauthenticated) {
			t.Errorf("SignIn with a %s = %v; want unauthenticated", tt.name, err)
		}
	}

	res, err := d.SignIn(ctx, email, temporary)
	if err != nil || !res.NewPasswordRequired || res.Challenge == "" {
		t.Fatalf("SignIn with the temporary password = %+v, %v; want the new password challenge", res, err)
	}
	if err := d.CompleteSignIn(ctx, email, res.Challenge, "weak"); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("CompleteSignIn with a weak password = %v; want invalid (the password policy)", err)
	}
	if err := d.CompleteSignIn(ctx, email, res.Challenge, chosen); err != nil {
		t.Fatalf("CompleteSignIn = %v", err)
	}
	if res, err := d.SignIn(ctx, email, chosen); err != nil || res.NewPasswordRequired {
		t.Fatalf("SignIn with the chosen password = %+v, %v; want signed in", res, err)
	}

	if err := d.ChangePassword(ctx, email, "Wrong-Pass-0000", changed); !patio.IsKind(err, patio.KindInvalid) {
		t.Errorf("ChangePassword with a wrong current password = %v; want invalid (current_password)", err)
	}
	if err := d.ChangePassword(ctx, email, chosen, changed); err != nil {
		t.Fatalf("ChangePassword = %v", err)
	}
	if _, err := d.SignIn(ctx, email, chosen); !patio.IsKind(err, patio.KindUnauthenticated) {
		t.Errorf("SignIn with the old password = %v; want unauthenticated", err)
	}
	if res, err := d.SignIn(ctx, email, changed); err != nil || res.NewPasswordRequired {
		t.Errorf("SignIn with the changed password = %+v, %v; want signed in", res, err)
	}
}

// Re-inviting gives a user a new temporary password (creating the user when the pool forgot it);
// SetPassword gives a permanent one, which signs in with no challenge.
func TestResetAndSetPassword(t *testing.T) {
	d, email := directory(t)
	ctx := context.Background()
	if err := d.ResetUser(ctx, email, temporary); err != nil {
		t.Fatalf("ResetUser of an unknown user = %v; want the user created", err)
	}
	if res, err := d.SignIn(ctx, email, temporary); err != nil || !res.NewPasswordRequired {
		t.Fatalf("SignIn = %+v, %v; want the new password challenge", res, err)
	}
	if err := d.ResetUser(ctx, email, "Second-Temp-Pass-2"); err != nil {
		t.Fatalf("ResetUser = %v", err)
	}
	if res, err := d.SignIn(ctx, email, "Second-Temp-Pass-2"); err != nil || !res.NewPasswordRequired {
		t.Errorf("SignIn with the new temporary password = %+v, %v; want the new password challenge", res, err)
	}

	other := "owner+" + email
	if err := d.SetPassword(ctx, other, chosen); err != nil {
		t.Fatalf("SetPassword = %v", err)
	}
	if res, err := d.SignIn(ctx, other, chosen); err != nil || res.NewPasswordRequired {
		t.Errorf("SignIn with a password set by SetPassword = %+v, %v; want signed in, no challenge", res, err)
	}
}
