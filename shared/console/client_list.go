package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// clientFilters are the query parameters of the clients list.
var clientFilters = []string{"q", "type", "status"}

// clientListData is a page of the team's clients.
type clientListData struct {
	Items    []clientRow
	Total    int
	Next     string
	Types    []string
	Statuses []string
}

// clientQuery reads the clients list's filters. q finds a CPF or a CNPJ in any punctuation (typed
// whole, it is the document's filter), else it is the API's word search (name words, email).
func clientQuery(q url.Values) patio.ClientQuery {
	cq := patio.ClientQuery{ListQuery: patio.ListQuery{Sort: "name", Limit: patio.Some(moduleLimit), Status: q["status"]},
		Type: q["type"]}
	if s := strings.TrimSpace(q.Get("q")); s != "" {
		if cpf, err := br.NormalizeCPF(s); err == nil {
			cq.CPF = &cpf
		} else if cnpj, err := br.NormalizeCNPJ(s); err == nil {
			cq.CNPJ = &cnpj
		} else {
			cq.Q = &s
		}
	}
	return cq
}

// clientList shows the team's clients by name, found by q, filtered by type and status, paged with
// cursors.
func (c *Console) clientList(rq *request) {
	q := rq.filters()
	data := clientListData{Types: patio.ClientTypes, Statuses: patio.ClientStatuses}
	cq := clientQuery(q)
	err := parseCursor(q.Get("cursor"), &cq.ListQuery)
	var page patio.Page[patio.Client]
	if err == nil {
		page, err = c.d.Records.Clients.List(rq.ctx(), rq.team.ID, cq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "clients", view{Title: rq.p.T("clients.title"), Data: data,
			Form: render.Refused(rq.p, q, err, clientFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	for _, cl := range page.Items {
		data.Items = append(data.Items, shownClient(rq, cl))
	}
	data.Total = page.Total
	data.Next = nextPage(q, clientFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "clients", view{Title: rq.p.T("clients.title"), Data: data, Form: render.NewForm(q)})
}
