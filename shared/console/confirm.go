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
		name, ok := cf.name(rq)
		if !ok {
			return
		}
		// The confirmed post carries what the first one did (a reason, a status), and the team.
		fields := url.Values{}
		for k, v := range rq.r.PostForm {
			if k != "confirm" && k != "team" {
				fields[k] = v
			}
		}
		c.render(rq, http.StatusOK, "confirm", view{Title: rq.p.T(cf.key + ".title"), Data: map[string]any{
			"Body": rq.p.T(cf.key+".body", name), "Submit": rq.p.T(cf.key + ".submit"),
			"Action": rq.r.URL.Path, "Fields": fields, "Back": cf.back(rq)}})
	}
}

// Where cancelling a confirmation goes back to.
func backTo(path string) func(*request) string { return func(*request) string { return path } }

// backToRecord goes back to the page of the record the path names (prefix and its id).
func backToRecord(prefix string) func(*request) string {
	return func(rq *request) string { return prefix + rq.r.PathValue("id") }
}
