package console

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// What the activity and financial screens share: the cursor of their lists, the snapshot a form
// carries of the record it was loaded with (to say what a stale edit missed), and the choice of a
// linked record among several matches.

// moduleLimit is how many records a page of the modules' lists shows.
const moduleLimit = 25

// listCursor encodes where a page ended (the store's position and the page's number) as one query
// parameter.
func listCursor(page int, after string) string { return strconv.Itoa(page) + ":" + after }

// parseCursor reads a cursor parameter into the list query ("" leaves it on the first page).
func parseCursor(s string, q *patio.ListQuery) error {
	if s == "" {
		return nil
	}
	n, after, ok := strings.Cut(s, ":")
	page, err := strconv.Atoi(n)
	if !ok || err != nil || page < 2 || after == "" {
		return patio.Invalidf("cursor is not valid for this search")
	}
	q.Page, q.After = patio.Some(page), after
	return nil
}

// nextPage returns the query string of a list's next page: the filters of q with the next cursor;
// "" on the last page.
func nextPage(q url.Values, filters []string, page patio.ListQuery, next string) string {
	if next == "" {
		return ""
	}
	v := url.Values{}
	for _, k := range filters {
		if vals, ok := q[k]; ok {
			v[k] = vals
		}
	}
	v.Set("cursor", listCursor(page.Page.Value+1, next))
	return v.Encode()
}

// snapshot encodes a record's editable fields as its edit form was loaded with them (the hidden
// field loaded).
func snapshot(fields map[string]string) string {
	b, _ := json.Marshal(fields)
	return base64.RawURLEncoding.EncodeToString(b)
}

// loadedFields reads the snapshot a form was loaded with (nil when it does not read).
func loadedFields(loaded string) map[string]string {
	var was map[string]string
	b, err := base64.RawURLEncoding.DecodeString(loaded)
	if err != nil || json.Unmarshal(b, &was) != nil {
		return nil
	}
	return was
}

// changedSince lists, sorted, the fields whose current value differs from the snapshot the form
// was loaded with; all of them when the snapshot does not read.
func changedSince(loaded string, current map[string]string) []string {
	was := loadedFields(loaded)
	var out []string
	for k, v := range current {
		if was == nil || was[k] != v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ptrString is a field's value as the snapshot holds it ("" for none).
func ptrString(s *string) string { return derefOr(s, "") }

// revisionOf reads a form's revision field (0 when missing or malformed: the edit then applies
// only to revision 0, which no record has, and is refused as stale).
func revisionOf(v url.Values) int {
	n, _ := strconv.Atoi(v.Get("revision"))
	return n
}

// itoa is strconv.Itoa.
func itoa(n int) string { return strconv.Itoa(n) }

// formValues are a record's editable fields as its edit form shows them, with its revision and
// the snapshot they were loaded from (to say what a stale edit missed).
func formValues(fields map[string]string, revision int) url.Values {
	v := url.Values{}
	for k, val := range fields {
		v.Set(k, val)
	}
	v.Set("revision", itoa(revision))
	v.Set("loaded", snapshot(fields))
	return v
}

// intString is an optional whole number as a form field holds it ("" for none).
func intString(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// linkedFormValues are formValues with a record's links shown by their labels l (what a person
// types to find them) instead of their ids.
func linkedFormValues(fields map[string]string, revision int, l linkLabels) url.Values {
	v := formValues(fields, revision)
	for text, label := range map[string]string{"vehicle": l.Vehicle, "client": l.Client, "deal": l.Deal} {
		v.Set(text, label)
		v.Del(text + "_id")
	}
	return v
}

// recordService is what the shared flows call of a module's use cases (patio.Activities,
// patio.Financial).
type recordService[T, In any] interface {
	Create(ctx context.Context, teamID string, in In) (T, error)
	Get(ctx context.Context, teamID, id string) (T, error)
	UpdateIf(ctx context.Context, teamID, id string, in In, pre patio.Precondition) (T, error)
}

// records is what the create and edit flows of a module share: its use cases, how its form reads,
// how a record's links and editable fields read, and where its pages are.
type records[T, In any] struct {
	svc recordService[T, In]
	// name is the module's record as its messages name it ("activity": done.activity.created).
	name string
	// base is the path of a record's page, less its id ("/console/activities/").
	base   string
	fields []string
	// read reads the form into an input as the page's language and the team's time zone p write
	// it (edit: an emptied optional field is cleared); onEdit, when set, drops what the edit form
	// does not move (a status, moved by its own buttons).
	read   func(values url.Values, p locale.Printer, edit bool) (In, error)
	onEdit func(In) In
	id     func(T) string
	links  func(T) (vehicleID, clientID, dealID *string)
	// values are a record's values as its edit form shows them, with its revision and the
	// snapshot (loaded) of editable.
	values   func(rq *request, rec T) url.Values
	editable func(rq *request, rec T) map[string]string
	// check, when set, is the domain's check of a new record's input (VehicleInput.ValidateNew):
	// a form refused for what the console could not read or find lists its problems too.
	check func(in In, now time.Time) error
	// notice, when set, adds a warning to the message of a record saved from in at now: the suffix
	// of its key ("_past": done.activity.created_past), or "" for none.
	notice func(in In, now time.Time) string
}

// doneKey is the message of a record created or saved (what: "created", "saved") from in.
func (m records[T, In]) doneKey(what string, in In, now time.Time) string {
	key := "done." + m.name + "." + what
	if m.notice != nil {
		key += m.notice(in, now)
	}
	return key
}

// create creates a record from the new-record form: links found, the form read, the record
// created once per form token. refuse shows the form refused (422).
func (m records[T, In]) create(c *Console, rq *request, refuse func(err error, choices linkChoices)) {
	values := rq.r.PostForm
	choices, err := c.resolveLinks(rq, values)
	if err != nil && !patio.IsKind(err, patio.KindInvalid) {
		refuse(err, choices)
		return
	}
	// Every problem at once: the links not found, the fields not read and the domain's own.
	var p patio.Problems
	if err != nil {
		p.AddError(patio.InBody, "", err)
	}
	in, err := m.read(values, rq.p, false)
	if err != nil {
		p.AddOthers(patio.InBody, err)
	}
	if p.Len() > 0 {
		if m.check != nil {
			addUnlinked(&p, m.check(in, rq.now))
		}
		refuse(p.Err(), choices)
		return
	}
	c.createOnce(rq, values, func(err error) { refuse(err, nil) }, m.base, m.doneKey("created", in, rq.now), func() (string, error) {
		rec, err := m.svc.Create(rq.ctx(), rq.team.ID, in)
		if err != nil {
			return "", err
		}
		return m.id(rec), nil
	})
}

// stale shows the edit form of a record changed since it was loaded (409): the record as it is
// now, what changed, and the reader's values to send again.
func (m records[T, In]) stale(c *Console, rq *request, id string, values url.Values,
	show func(cur T, status int, f *render.Form, choices linkChoices, changed []string)) {
	cur, err := m.svc.Get(rq.ctx(), rq.team.ID, id)
	if err != nil {
		c.fail(rq, err)
		return
	}
	fresh := m.values(rq, cur)
	changed := changedSince(values.Get("loaded"), m.editable(rq, cur))
	// A field someone else changed that this reader left as loaded shows its current value;
	// what the reader typed stays, to send again.
	if was := loadedFields(values.Get("loaded")); was != nil {
		for _, k := range changed {
			if _, shown := fresh[k]; shown && strings.TrimSpace(values.Get(k)) == was[k] {
				values.Set(k, fresh.Get(k))
			}
		}
	}
	values.Set("revision", fresh.Get("revision"))
	values.Set("loaded", fresh.Get("loaded"))
	f := render.NewForm(values)
	f.Problems = map[string][]string{"": {rq.p.T("modules.stale")}}
	show(cur, http.StatusConflict, f, nil, changed)
}

// addUnlinked records err's problems as AddOthers does, leaving out a link's (client_id) when
// the text it was to be found by (client) has a problem already: a client not found is not also
// a client missing.
func addUnlinked(p *patio.Problems, err error) {
	var e *patio.Error
	if !errors.As(err, &e) || len(e.Details) == 0 {
		if err != nil {
			p.AddOthers(patio.InBody, err)
		}
		return
	}
	var keep patio.Problems
	for _, d := range e.Details {
		if text, ok := strings.CutSuffix(d.Field, "_id"); !ok || !p.Has(text) {
			keep.AddError(d.In, d.Field, &patio.Error{Kind: patio.KindInvalid, Details: []patio.FieldError{d}})
		}
	}
	if keep.Len() > 0 {
		p.AddOthers(patio.InBody, keep.Err())
	}
}

// save applies the edit form to the revision it was loaded with: a record changed meanwhile is not
// overwritten (409, with what changed), a refused form comes back with its values (422). show
// renders the record's page with a form.
func (m records[T, In]) save(c *Console, rq *request, show func(cur T, status int, f *render.Form, choices linkChoices, changed []string)) {
	ctx, id := rq.ctx(), rq.r.PathValue("id")
	values := rq.r.PostForm
	cur, err := m.svc.Get(ctx, rq.team.ID, id)
	if err != nil {
		c.fail(rq, err)
		return
	}
	v, cl, d := m.links(cur)
	keepLinks(values, c.labelLinks(ctx, rq.team.ID, v, cl, d), v, cl, d)
	choices, err := c.resolveLinks(rq, values)
	if err != nil && !patio.IsKind(err, patio.KindInvalid) {
		c.fail(rq, err)
		return
	}
	// The links not found and the fields not read are refused together.
	var p patio.Problems
	if err != nil {
		p.AddError(patio.InBody, "", err)
	}
	in, err := m.read(values, rq.p, true)
	if err != nil {
		p.AddOthers(patio.InBody, err)
	}
	if p.Len() > 0 {
		show(cur, http.StatusUnprocessableEntity, render.Refused(rq.p, values, p.Err(), m.fields...), choices, nil)
		return
	}
	if err == nil {
		if m.onEdit != nil {
			in = m.onEdit(in)
		}
		_, err = m.svc.UpdateIf(ctx, rq.team.ID, id, in, patio.Precondition{Revisions: []int{revisionOf(values)}})
	}
	switch k := patio.KindOf(err); {
	case err == nil:
		c.done(rq, m.base+id, m.doneKey("saved", in, rq.now))
	case k == patio.KindPrecondition:
		m.stale(c, rq, id, values, show)
	case k == patio.KindInvalid || k == patio.KindConflict:
		show(cur, http.StatusUnprocessableEntity, render.Refused(rq.p, values, err, m.fields...), nil, nil)
	default:
		c.fail(rq, err)
	}
}
