package console

import "net/http"

// keyList shows the team's API keys: name, scopes, created, last used, status.
func (c *Console) keyList(rq *request) {
	c.keyPage(rq, http.StatusOK, keyListData{}, rq.newForm(nil))
}
