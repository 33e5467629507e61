package console

import (
	"net/http"
)

// dealShow shows a deal: its fields, its client and vehicle, and what may be done with it (win,
// lose, reopen); after a win, the sale's revenue record to create, prefilled.
func (c *Console) dealShow(rq *request) {
	c.dealPage(rq, http.StatusOK, nil)
}
