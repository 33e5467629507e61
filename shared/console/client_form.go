package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// clientFormData is what the client form offers (the types of client), and on an edit the client
// edited and what changed since the form was loaded (a stale edit).
type clientFormData struct {
	Types   []string
	Client  *patio.Client
	Changed []string
}

// clientNew shows the new client form (a walk-in: a person, by default).
func (c *Console) clientNew(rq *request) {
	c.render(rq, http.StatusOK, "client_new", view{Title: rq.p.T("clients.new.title"), Data: clientFormData{Types: patio.ClientTypes},
		Form: newForm(url.Values{"type": {patio.ClientIndividual}})})
}

// clientRecords is the clients' part of the shared create and edit flows.
func (c *Console) clientRecords() records[patio.Client, patio.ClientInput] {
	return records[patio.Client, patio.ClientInput]{svc: c.d.Records.Clients, name: "client", base: "/console/clients/",
		fields: form.ClientFields,
		read: func(values url.Values, _ *time.Location, edit bool) (patio.ClientInput, error) {
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

// clientCreate registers a client from the form, once per form token, through the same use case
// as the API (its checks of CPF and CNPJ, the alphanumeric CNPJ included; its client.created
// event); a refused form, a duplicate document among its problems, comes back with the values
// entered, each problem next to its field.
func (c *Console) clientCreate(rq *request) {
	c.clientRecords().create(c, rq, func(err error, _ linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "client_new", view{Title: rq.p.T("clients.new.title"),
			Data: clientFormData{Types: patio.ClientTypes}, Form: refused(rq.p, rq.r.PostForm, err, form.ClientFields...)})
	})
}

// clientSave applies the edit form through the API's use case (its checks of the documents, a
// duplicate CPF or CNPJ refused next to its field; its client.updated event) to the revision the
// form was loaded with: a client changed meanwhile is not overwritten (409, with what changed).
func (c *Console) clientSave(rq *request) {
	c.clientRecords().save(c, rq, func(cur patio.Client, status int, f *formState, _ linkChoices, changed []string) {
		c.renderClient(rq, status, cur, f, changed)
	})
}
