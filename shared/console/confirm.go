package console

import (
	"net/http"
	"net/url"
)

// confirmation is a destructive action's first step: the POST without confirm=1 answers 200 with a
// page that says what the action will do to which record and asks to confirm; only the POST with
// confirm=1 acts. Nothing changes before that.
type confirmation struct {
	// key names the page's messages: key.title, key.body (with the record's name) and key.submit.
	key string
	// name returns the name of the record the action is on, having answered the request itself
	// (404) when there is none.
	name func(rq *request) (string, bool)
	// back is where "cancel" goes.
	back func(rq *request) string
}

// confirmFirst runs act on a confirmed POST, and answers any other with cf's page.
func (c *Console) confirmFirst(cf confirmation, act func(*request)) func(*request) {
	return func(rq *request) {
		if rq.r.PostForm.Get("confirm") == "1" {
			act(rq)
			return
		}
		c.confirmPage(cf)(rq)
	}
}

// confirmPage answers cf's page, to a POST without confirm=1 or to a GET: a button that only asks
// may be a form of method get, so that Back after the confirmed post (a 303 to the result) comes
// to a page the browser loads again, never to a form it asks to send again.
func (c *Console) confirmPage(cf confirmation) handler {
	return func(rq *request) {
		name, ok := cf.name(rq)
		if !ok {
			return
		}
		c.askConfirm(rq, cf.key, rq.p.T(cf.key+".body", name), "", cf.back(rq), asked(rq), nil)
	}
}

// asked returns the fields the question's answer sends again: those of the post (or the query)
// that asked, a reason or a status, but its confirm and team (the page's own).
func asked(rq *request) url.Values {
	from := rq.r.PostForm
	if rq.r.Method == http.MethodGet {
		from = rq.r.URL.Query()
	}
	fields := url.Values{}
	for k, v := range from {
		if k != "confirm" && k != "team" {
			fields[k] = v
		}
	}
	return fields
}

// askConfirm renders a confirmation page: key's title and submit, the body and a detail (may be
// ""), the fields to send again with confirm=1, where cancelling goes, and more for the page
// (Methods: the payment methods to pick one of).
func (c *Console) askConfirm(rq *request, key, body, detail, back string, fields url.Values, more map[string]any) {
	data := map[string]any{"Body": body, "Detail": detail, "Submit": rq.p.T(key + ".submit"),
		"Action": rq.r.URL.Path, "Fields": fields, "Back": back}
	for k, v := range more {
		data[k] = v
	}
	c.render(rq, http.StatusOK, "confirm", view{Title: rq.p.T(key + ".title"), Data: data})
}

// Where cancelling a confirmation goes back to.
func backTo(path string) func(*request) string { return func(*request) string { return path } }

// backToRecord goes back to the page of the record the path names (prefix and its id).
func backToRecord(prefix string) func(*request) string {
	return func(rq *request) string { return prefix + rq.r.PathValue("id") }
}
