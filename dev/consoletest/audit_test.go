package consoletest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
)

// TestAuditNamesRecords: the audit log names the vehicle, client and deal each entry changed (a
// plate and title, a name, a title) and links to its page, in both languages, instead of the
// record's kind and id.
func TestAuditNamesRecords(t *testing.T) {
	tm := newTeam(t)
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Jeep","model":"Renegade","price":99990,"plate":"QWE4R56"}`)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Paula Lima","cpf":"11144477735"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Renegade da Paula","client_id":"`+client+`","vehicle_id":"`+vehicle+`"}`)
	ctx, session := invite(t, tm, patio.RoleViewer)

	links := func() map[string]string {
		t.Helper()
		return value(t, ctx, chromedp.Evaluate[map[string]string](
			`Object.fromEntries([...document.querySelectorAll("main tbody td a")].map(a => [new URL(a.href).pathname.replace(/^.*\/console\//, "/console/"), a.innerText]))`))
	}
	want := map[string]string{"/console/vehicles/" + vehicle: "QWE4R56 Jeep Renegade", "/console/clients/" + client: "Paula Lima",
		"/console/deals/" + deal: "Renegade da Paula"}
	var got map[string]string
	// The dispatcher writes the API's entries from the stream: the log shows them a moment later.
	waitFor(t, "the audit log to show the API's three creations", 30*time.Second, func() bool {
		open(t, ctx, "/console/audit")
		log := text(t, ctx, "main tbody")
		return strings.Contains(log, "Veículo cadastrado") && strings.Contains(log, "Cliente cadastrado") &&
			strings.Contains(log, "Negócio criado")
	})
	got = links()
	for path, name := range want {
		if got[path] != name {
			t.Errorf("the audit log links %s as %q; want %q (links: %v)", path, got[path], name, got)
		}
	}
	if log := text(t, ctx, "main tbody"); strings.Contains(log, "deal:"+deal) || !strings.Contains(log, "Negócio") {
		t.Errorf("the audit log reads %q; want the deal named, its kind in Portuguese, not its id", log)
	}
	if page := inEnglish(t, session, "/console/audit"); !strings.Contains(page, "Renegade da Paula") || !strings.Contains(page, ">Deal<") {
		t.Errorf("the English audit log does not name the deal with its kind in English: %s", page)
	}
}
