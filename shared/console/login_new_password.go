package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/patio"
)

// newPassword sets the new password a temporary one requires, and signs the person in.
func (c *Console) newPassword(rq *request) {
	ctx := rq.ctx()
	ck, err := rq.r.Cookie(session.SignInCookie)
	if err != nil {
		c.fail(rq, patio.Errorf(patio.KindUnauthenticated, "the sign-in has expired; sign in again"))
		return
	}
	hash := patio.HashKey(ck.Value)
	pending, err := c.d.SignIns.SignIn(ctx, hash, rq.now)
	if patio.IsKind(err, patio.KindNotFound) {
		err = patio.Errorf(patio.KindUnauthenticated, "the sign-in has expired; sign in again")
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	password := rq.r.PostFormValue("password")
	err = patio.CheckPassword("password", password)
	if err == nil {
		err = c.d.Identity.CompleteSignIn(ctx, pending.Email, pending.Challenge, password)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusUnprocessableEntity, "new_password", view{Title: rq.p.T("newpassword.title"),
			Form: render.Refused(rq.p, nil, err, "password")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	_ = c.d.SignIns.DeleteSignIn(ctx, hash)
	c.clearCookie(rq, session.SignInCookie)
	c.startSession(rq, pending.Email, pending.Next)
}
