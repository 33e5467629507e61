package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// clientRestore makes a deactivated client active again and goes back to their page.
func (c *Console) clientRestore() handler {
	return c.recordAction(clientsPath+"/", "done.client.restored", func(rq *request, id string) error {
		_, err := c.d.Records.Clients.Update(rq.ctx(), rq.team.ID, id, patio.ClientInput{Status: patio.Some(string(patio.ClientActive))})
		return err
	})
}
