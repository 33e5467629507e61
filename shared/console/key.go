package console

import (
	"github.com/patio-dev/patio/shared/console/render"
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

// keyPage renders the API keys page with the team's keys, data (a key just created) and the
// creation form f.
func (c *Console) keyPage(rq *request, status int, data keyListData, f *render.Form) {
	ks, err := c.d.Keys.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Keys, data.Scopes = ks, patio.Scopes
	c.render(rq, status, "keys", view{Title: rq.p.T("keys.title"), Data: data, Form: f})
}

// keyName is the name of the path's API key, which its revocation's confirmation names.
func (c *Console) keyName(rq *request) (string, bool) {
	keys, err := c.d.Keys.List(rq.ctx(), rq.team.ID)
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	for _, k := range keys {
		if k.ID == rq.r.PathValue("id") {
			return k.Name, true
		}
	}
	c.fail(rq, patio.NotFoundf("key not found"))
	return "", false
}
