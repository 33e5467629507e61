package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// keyListData is the API keys page: the team's keys (never a key itself) and the scopes a new key
// may have.
type keyListData struct {
	Keys   []patio.APIKey
	Scopes []string
	// Created is the key just created and its secret, shown once.
	Created *patio.APIKey
	Secret  string
}

// keyList shows the team's API keys: name, scopes, created, last used, status.
func (c *Console) keyList(rq *request) {
	c.keyPage(rq, http.StatusOK, keyListData{}, newForm(nil))
}

// keyPage renders the API keys page with the team's keys, data (a key just created) and the
// creation form f.
func (c *Console) keyPage(rq *request, status int, data keyListData, f *formState) {
	ks, err := c.d.Keys.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Keys, data.Scopes = ks, patio.Scopes
	c.render(rq, status, "keys", view{Title: rq.p.T("keys.title"), Data: data, Form: f})
}

// keyCreate creates an API key with a name and scopes (at least one) and shows the key, once.
func (c *Console) keyCreate(rq *request) {
	values := rq.r.PostForm
	name, scopes := form.Key(values)
	c.once(rq, values, func() (string, bool) {
		k, secret, err := c.d.Keys.Create(rq.ctx(), rq.team.ID, name, scopes)
		if patio.IsKind(err, patio.KindInvalid) {
			c.keyPage(rq, http.StatusUnprocessableEntity, keyListData{}, refused(rq.p, values, err, form.KeyFields...))
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.keyPage(rq, http.StatusOK, keyListData{Created: &k, Secret: secret}, newForm(nil))
		return "/console/keys", true
	})
}

// keyRevoke revokes a key of the team: the next API request with it is refused.
func (c *Console) keyRevoke(rq *request) {
	if _, err := c.d.Keys.Revoke(rq.ctx(), rq.team.ID, rq.r.PathValue("id")); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/keys", "done.key.revoked")
}
