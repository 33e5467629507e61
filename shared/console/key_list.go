package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
)

// keyList shows the team's API keys: name, scopes, created, last used, status.
func (c *Console) keyList(rq *request) {
	c.keyPage(rq, http.StatusOK, keyListData{}, render.NewForm(nil))
}
