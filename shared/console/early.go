package console

import (
	"context"
	"net/http"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/console/session"
)

// A page's early read is its first data read, sent in the same round trip as the session's read
// instead of after it. The session cookie names the team its session was in when it was set
// (session.Hint), which proves nothing: the read's result waits unread until serve has loaded the
// session and let the page run (a live session, its member still in the team, the role allowed),
// and the page uses it only when the session's team is the one the cookie named. Otherwise it is
// dropped: a signed-out request goes to sign-in, a forbidden one gets 403, and a session in
// another team than its cookie says has the page read again, for its own team, after the session.

// pending is an early read under way: its team, and its result once done is closed.
type pending struct {
	teamID string
	done   chan struct{}
	v      any
	err    error
}

// handleEarly registers the GET page pattern with access a, whose data comes from read (for a
// team, with nothing of the session: it may run before the session is known) and is shown by
// show in the template set view. read starts beside the session's read when the cookie names a
// team; so does the preparation of view and of the messages, which a cold start would otherwise
// do after the round trip.
func handleEarly[T any](c *Console, pattern string, a access, view string, read func(ctx context.Context, teamID string) (T, error),
	show func(rq *request, v T)) {
	a.early = func(rq *request, teamID string) {
		p := &pending{teamID: teamID, done: make(chan struct{})}
		ctx := rq.ctx() // ended with the request, so a read nobody waits for stops with it
		go func() {
			defer close(p.done)
			// Started from here, the preparation runs once this read waits on DynamoDB, and
			// never delays the read's own start.
			go func() {
				render.Page(view)
				locale.Prepare()
			}()
			p.v, p.err = read(ctx, teamID)
		}()
		rq.early = p
	}
	c.handle(pattern, a, func(rq *request) {
		var v T
		var err error
		if p := rq.early; p != nil && p.teamID == rq.team.ID {
			<-p.done
			err = p.err
			if err == nil {
				v = p.v.(T)
			}
		} else {
			v, err = read(rq.ctx(), rq.team.ID)
		}
		if err != nil {
			c.fail(rq, err)
			return
		}
		show(rq, v)
	})
}

// startEarly starts the route's early read, if it has one, for the team the session cookie names:
// only for a GET whose session is not loaded yet.
func startEarly(rq *request, a access) {
	if a.early == nil || rq.r.Method != http.MethodGet || rq.sess != nil {
		return
	}
	if teamID := session.Hint(rq.r); teamID != "" {
		a.early(rq, teamID)
	}
}
