package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/br"
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

// clientRow is a client as the lists and pages show them: its document formatted, and masked
// but for its last four characters for a role without personal data (Whole false).
type clientRow struct {
	patio.Client
	Document string
	Whole    bool
}

// shownClient is how rq's member may see a client.
func shownClient(rq *request, c patio.Client) clientRow {
	row := clientRow{Client: c, Whole: rq.Can(string(patio.PermPersonalData))}
	doc, format := "", br.FormatCPF
	switch {
	case c.CPF != nil:
		doc = *c.CPF
	case c.CNPJ != nil:
		doc, format = *c.CNPJ, br.FormatCNPJ
	}
	if doc != "" {
		if !row.Whole {
			doc = br.Mask(doc)
		}
		row.Document = format(doc)
	}
	if !row.Whole {
		row.Email, row.Phone, row.BirthDate, row.Address = nil, nil, nil, nil
	}
	return row
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
			Form: refused(rq.p, q, err, clientFilters...)})
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
	c.render(rq, http.StatusOK, "clients", view{Title: rq.p.T("clients.title"), Data: data, Form: newForm(q)})
}

// clientPageData is a client's page: the client as the member may see them, and their deals,
// activities and financial records.
type clientPageData struct {
	Client clientRow
	related
	// Types (the client's own) and Changed (after a stale edit) are the edit form's.
	Types   []string
	Changed []string
}

// clientShow shows one client of the team, and for those who may their edit form, loaded with
// their current values and revision.
func (c *Console) clientShow(rq *request) {
	cl, err := c.d.Records.Clients.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderClient(rq, http.StatusOK, cl, nil, nil)
}

// renderClient renders a client's page (as the member may see them) with their edit form f (nil:
// their current values) and, after a stale edit, what changed.
func (c *Console) renderClient(rq *request, status int, cl patio.Client, f *formState, changed []string) {
	data := clientPageData{Client: shownClient(rq, cl), Types: []string{cl.Type}, Changed: changed}
	var err error
	if data.related, err = c.relatedTo(rq.ctx(), rq.team.ID, patio.ResourceClient, cl.ID); err != nil {
		c.fail(rq, err)
		return
	}
	if f == nil {
		f = newForm(c.clientRecords().values(rq, cl))
	}
	f.Values.Set("type", cl.Type)
	c.render(rq, status, "client", view{Title: cl.Name, Data: data, Form: f})
}

// clientDeactivate deactivates a client through the API's use case and goes back to their page.
func (c *Console) clientDeactivate() handler {
	return c.recordAction("/console/clients/", "done.client.deactivated", func(rq *request, id string) error {
		_, err := c.d.Records.Clients.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}

// clientRestore makes a deactivated client active again and goes back to their page.
func (c *Console) clientRestore() handler {
	return c.recordAction("/console/clients/", "done.client.restored", func(rq *request, id string) error {
		_, err := c.d.Records.Clients.Update(rq.ctx(), rq.team.ID, id, patio.ClientInput{Status: patio.Some(patio.ClientActive)})
		return err
	})
}
