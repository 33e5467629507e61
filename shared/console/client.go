package console

import (
	"net/url"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

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

// clientFormData is what the client form offers (the types of client), and on an edit the client
// edited and what changed since the form was loaded (a stale edit).
type clientFormData struct {
	Types   []string
	Client  *patio.Client
	Changed []string
}

// clientEditable is a client's editable fields as its form holds them: those of its type (the
// type itself does not change).
func clientEditable(_ *request, cl patio.Client) map[string]string {
	m := map[string]string{"name": cl.Name, "email": ptrString(cl.Email), "phone": ptrString(cl.Phone), "notes": ptrString(cl.Notes)}
	if cl.Type == patio.ClientCompany {
		m["cnpj"], m["trade_name"], m["state_registration"] = ptrString(cl.CNPJ), ptrString(cl.TradeName), ptrString(cl.StateRegistration)
		return m
	}
	m["cpf"], m["birth_date"] = ptrString(cl.CPF), ""
	if cl.BirthDate != nil {
		m["birth_date"] = cl.BirthDate.String()
	}
	return m
}

// clientRecords is the clients' part of the shared create and edit flows.
func (c *Console) clientRecords() records[patio.Client, patio.ClientInput] {
	return records[patio.Client, patio.ClientInput]{svc: c.d.Records.Clients, name: "client", base: clientsPath + "/",
		fields: form.ClientFields,
		read: func(values url.Values, _ locale.Printer, edit bool) (patio.ClientInput, error) {
			return form.Client(values, edit)
		},
		id:    func(cl patio.Client) string { return cl.ID },
		links: func(patio.Client) (*string, *string, *string) { return nil, nil, nil },
		values: func(rq *request, cl patio.Client) url.Values {
			v := formValues(clientEditable(rq, cl), cl.Revision)
			v.Set("type", cl.Type)
			return v
		},
		editable: clientEditable}
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

// renderClient renders a client's page (as the member may see them) with their edit form f (nil:
// their current values) and, after a stale edit, what changed.
func (c *Console) renderClient(rq *request, status int, cl patio.Client, f *render.Form, changed []string) {
	data := clientPageData{Client: shownClient(rq, cl), Types: []string{cl.Type}, Changed: changed}
	var err error
	if data.related, err = c.relatedTo(rq.ctx(), rq.team.ID, patio.ResourceClient, cl.ID); err != nil {
		c.fail(rq, err)
		return
	}
	if f == nil {
		f = render.NewForm(c.clientRecords().values(rq, cl))
	}
	f.Values.Set("type", cl.Type)
	c.render(rq, status, "client", view{Title: cl.Name, Data: data, Form: f})
}

// clientName is the name of the path's client, which their deactivation's confirmation names.
func (c *Console) clientName(rq *request) (string, bool) {
	cl, err := c.d.Records.Clients.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return cl.Name, true
}
