package console

import (
	"context"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/patio"
)

// Records are the public API's use cases the console reads to link activities and financial
// records to a vehicle, a client or a deal of the team.
type Records struct {
	Vehicles patio.Vehicles
	Clients  patio.Clients
	Deals    patio.Deals
}

// choice is a record a link may name, as a person recognises it.
type choice struct {
	ID, Label string
}

// linkChoices are the records that a link's text matched when it matched several.
type linkChoices map[string][]choice

// maxChoices is how many matching records a link offers to choose from.
const maxChoices = 10

// resolveLinks turns what a person typed to find a linked record (vehicle: a plate; client: a name,
// a CPF or a CNPJ; deal: a title) into the record's id (vehicle_id, client_id, deal_id), in values.
// An id given (chosen among several matches, or posted) wins over the text. A text that matches
// nothing is a problem of its field; one that matches several offers them to choose from.
func (c *Console) resolveLinks(rq *request, values url.Values) (linkChoices, error) {
	var p patio.Problems
	choices := linkChoices{}
	for _, l := range []struct {
		text, id string
		find     func(context.Context, string, string) ([]choice, error)
	}{
		{"vehicle", "vehicle_id", c.findVehicles},
		{"client", "client_id", c.findClients},
		{"deal", "deal_id", c.findDeals},
	} {
		typed := strings.TrimSpace(values.Get(l.text))
		if typed == "" || strings.TrimSpace(values.Get(l.id)) != "" {
			continue
		}
		found, err := l.find(rq.ctx(), rq.team.ID, typed)
		if err != nil && !patio.IsKind(err, patio.KindInvalid) {
			return nil, err
		}
		switch {
		case len(found) == 1:
			values.Set(l.id, found[0].ID)
		case len(found) == 0:
			p.Add(patio.InBody, l.text, "no %s of this team matches %q", l.text, typed)
		default:
			choices[l.id] = found
			p.Add(patio.InBody, l.text, "several records match %q: choose one", typed)
		}
	}
	return choices, p.Err()
}

// findVehicles finds the team's vehicles by plate, any status, at most maxChoices.
func (c *Console) findVehicles(ctx context.Context, teamID, plate string) ([]choice, error) {
	page, err := c.d.Records.Vehicles.List(ctx, teamID, patio.VehicleQuery{Plate: &plate,
		ListQuery: patio.ListQuery{Status: patio.VehicleStatuses, Limit: patio.Some(maxChoices)}})
	var out []choice
	for _, v := range page.Items {
		out = append(out, choice{ID: v.ID, Label: derefOr(v.Plate, "") + " · " + v.Title})
	}
	return out, err
}

// findClients finds the team's clients by CPF, CNPJ or name words, at most maxChoices.
func (c *Console) findClients(ctx context.Context, teamID, text string) ([]choice, error) {
	q := patio.ClientQuery{ListQuery: patio.ListQuery{Status: patio.ClientStatuses, Limit: patio.Some(maxChoices)}}
	if cpf, err := br.NormalizeCPF(text); err == nil {
		q.CPF = &cpf
	} else if cnpj, err := br.NormalizeCNPJ(text); err == nil {
		q.CNPJ = &cnpj
	} else {
		q.Q = &text
	}
	page, err := c.d.Records.Clients.List(ctx, teamID, q)
	var out []choice
	for _, cl := range page.Items {
		doc := derefOr(cl.CPF, derefOr(cl.CNPJ, ""))
		out = append(out, choice{ID: cl.ID, Label: cl.Name + " · " + doc})
	}
	return out, err
}

// findDeals finds the team's deals by title words, at most maxChoices.
func (c *Console) findDeals(ctx context.Context, teamID, title string) ([]choice, error) {
	page, err := c.d.Records.Deals.List(ctx, teamID, patio.DealQuery{Q: &title,
		ListQuery: patio.ListQuery{Status: patio.DealStatuses, Limit: patio.Some(maxChoices)}})
	var out []choice
	for _, d := range page.Items {
		out = append(out, choice{ID: d.ID, Label: d.Title})
	}
	return out, err
}

// linkLabels are how a record's links read on its page and in its edit form.
type linkLabels struct {
	Vehicle, Client, Deal string
}

// labelLinks reads the records a record links to, for people to recognise them (a plate, a name, a
// title); a link to a record that no longer reads shows its id.
func (c *Console) labelLinks(ctx context.Context, teamID string, vehicleID, clientID, dealID *string) linkLabels {
	var l linkLabels
	if vehicleID != nil {
		l.Vehicle = *vehicleID
		if v, err := c.d.Records.Vehicles.Get(ctx, teamID, *vehicleID); err == nil {
			l.Vehicle = vehicleName(v)
		}
	}
	if clientID != nil {
		l.Client = *clientID
		if cl, err := c.d.Records.Clients.Get(ctx, teamID, *clientID); err == nil {
			l.Client = cl.Name
		}
	}
	if dealID != nil {
		l.Deal = *dealID
		if d, err := c.d.Records.Deals.Get(ctx, teamID, *dealID); err == nil {
			l.Deal = d.Title
		}
	}
	return l
}

// vehicleName is a vehicle as people at the lot name it: its plate (as it was registered) and its
// title.
func vehicleName(v patio.Vehicle) string {
	if v.Plate == nil {
		return v.Title
	}
	return *v.Plate + " " + v.Title
}

// derefOr is *s, or def when s is nil.
func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// keepLinks prepares an edit form's links for resolveLinks: a link whose text still reads as the
// record's current link keeps it, an emptied one is cleared, a changed one is looked up (an id
// posted, chosen among matches, wins).
func keepLinks(values url.Values, cur linkLabels, vehicleID, clientID, dealID *string) {
	for _, l := range []struct {
		text, id, label string
		curID           *string
	}{{"vehicle", "vehicle_id", cur.Vehicle, vehicleID}, {"client", "client_id", cur.Client, clientID},
		{"deal", "deal_id", cur.Deal, dealID}} {
		typed := strings.TrimSpace(values.Get(l.text))
		switch {
		case strings.TrimSpace(values.Get(l.id)) != "":
		case typed == "":
			values.Set(l.id, "")
		case typed == l.label && l.curID != nil:
			values.Set(l.id, *l.curID)
		}
	}
}
