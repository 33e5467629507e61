package main

import (
	"testing"
	"time"
)

// The ledger finds each broken promise in a history it is handed: a 2xx whose write is not in the
// store, a key that made two records, a change no event reached, an event of no committed change,
// two event ids for one change, and a delivery repeated.
func TestCheckFindsBrokenPromises(t *testing.T) {
	now := time.Now()
	phases := []phaseWindow{{name: "baseline", start: now, faultEnd: now, end: now}, {name: "fault", start: now, faultEnd: now, end: now}}
	hist := []entry{
		{Phase: "baseline", Op: "create vehicle", Key: "chaos-k1", Attempt: 1, Status: 201, ID: "v1", Revision: 1},
		{Phase: "baseline", Op: "update vehicle", Attempt: 1, Status: 200, ID: "v1", Revision: 2},
		{Phase: "fault", Faulty: true, Op: "create client", Key: "chaos-k2", Attempt: 1, Status: 503},
		{Phase: "fault", Op: "create client", Key: "chaos-k2", Attempt: 2, Status: 201, ID: "c1", Revision: 1},
		{Phase: "fault", Op: "create deal", Key: "chaos-k3", Attempt: 1, Status: 201, ID: "d-lost", Revision: 1},
		{Phase: "fault", Faulty: true, Op: "update vehicle", Attempt: 1, Status: 500},
	}
	recs := map[string]record{
		"v1": {id: "v1", marker: "chaos-k1", revision: 2},
		"c1": {id: "c1", marker: "chaos-k2", revision: 1},
		"c2": {id: "c2", marker: "chaos-k2", revision: 1}, // the retried key's second record
	}
	ev := func(id, obj string, rev int, typ string) delivery {
		return delivery{EventID: id, ObjectID: obj, Revision: rev, Type: typ}
	}
	both := []delivery{ev("e1", "v1", 1, "vehicle.created"), ev("e2", "v1", 2, "vehicle.updated"), ev("e3", "c1", 1, "client.created"),
		ev("e4", "c2", 1, "client.created")}
	second := append(append([]delivery(nil), both[:3]...), // c2's event never reached the second receiver
		ev("e2", "v1", 2, "vehicle.updated"), // repeated
		ev("e5", "v1", 2, "vehicle.updated"), // a second event id for one change
		ev("e6", "v1", 3, "vehicle.updated"), // a revision that never committed
	)
	l := check(hist, recs, [][]delivery{both, second}, phases)
	base, fault := l.rows["baseline"], l.rows["fault"]
	if base.Requests != 2 || base.Lost != 0 || base.Repeated != 1 || base.ExtraEventIDs != 1 || base.Phantom != 1 {
		t.Errorf("baseline row = %+v; want 2 requests, 0 lost, 1 repeated, 1 extra event id, 1 phantom", *base)
	}
	if fault.Requests != 3 || fault.Lost != 1 || fault.Duplicates != 1 || fault.FaultyFiveHundreds != 1 || fault.Answers["503"] != 1 {
		t.Errorf("fault row = %+v; want 3 requests, 1 lost, 1 duplicate, one 500 and one 503", *fault)
	}
	if un := l.rows["(unattributed)"]; un == nil || un.MissingEvents != 1 {
		t.Errorf("unattributed row = %+v; want c2's one missing event (no answer made c2)", un)
	}
}
