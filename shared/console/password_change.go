package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// changePassword changes the signed-in person's password.
func (c *Console) changePassword(rq *request) {
	current, password := rq.r.PostFormValue("current_password"), rq.r.PostFormValue("password")
	var p patio.Problems
	if current == "" {
		p.Add(patio.InBody, "current_password", "the current password is wrong")
	}
	if err := patio.CheckPassword("password", password); err != nil {
		p.AddError(patio.InBody, "password", err)
	}
	err := p.Err()
	if err == nil {
		err = c.d.Identity.ChangePassword(rq.ctx(), rq.sess.Email, current, password)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusUnprocessableEntity, "password", view{Title: rq.p.T("password.title"),
			Form: render.Refused(rq.p, nil, err, "current_password", "password")})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, passwordPath, "done.password.changed")
}
