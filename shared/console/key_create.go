package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// keyCreate creates an API key with a name and scopes (at least one) and shows the key, once.
func (c *Console) keyCreate(rq *request) {
	values := rq.r.PostForm
	name, scopes := form.Key(values)
	c.once(rq, values, func() (string, bool) {
		k, secret, err := c.d.Keys.Create(rq.ctx(), rq.team.ID, name, scopes)
		if patio.IsKind(err, patio.KindInvalid) {
			c.keyPage(rq, http.StatusUnprocessableEntity, keyListData{}, render.Refused(rq.p, values, err, form.KeyFields...))
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.keyPage(rq, http.StatusOK, keyListData{Created: &k, Secret: secret}, render.NewForm(nil))
		return keysPath, true
	})
}
