package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// recordAction applies a status change of a vehicle, client or deal through the API's use case
// and goes back to its page; a change its rules refuse shows there as a problem.
func (c *Console) recordAction(base, done string, act func(rq *request, id string) error) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		err := act(rq, id)
		switch k := patio.KindOf(err); {
		case err == nil:
			c.done(rq, base+id, done)
		case k == patio.KindInvalid || k == patio.KindConflict:
			c.fail(rq, patio.Conflictf("%s", rq.p.Error(err)))
		default:
			c.fail(rq, err)
		}
	}
}
