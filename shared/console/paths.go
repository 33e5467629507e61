package console

import "github.com/patio-dev/patio/shared/patio"

// The console's paths: the one table the routes (routes.go) are registered from, of which the
// handlers build their links and redirects and the templates their links (request.Paths), so
// that a page's path is written once. A section's
// list is at its path, a record's page at path/<id>, the record's forms at path/<id>/<action>.
const (
	rootPath       = "/console"
	homePath       = rootPath + "/"
	staticPath     = rootPath + "/static"
	loginPath      = rootPath + "/login"
	logoutPath     = rootPath + "/logout"
	languagePath   = rootPath + "/language"
	passwordPath   = rootPath + "/account/password"
	teamPath       = rootPath + "/team"
	keysPath       = rootPath + "/keys"
	webhooksPath   = rootPath + "/webhooks"
	deliveriesPath = rootPath + "/deliveries"
	vehiclesPath   = rootPath + "/vehicles"
	clientsPath    = rootPath + "/clients"
	dealsPath      = rootPath + "/deals"
	activitiesPath = rootPath + "/activities"
	financialPath  = rootPath + "/financial"
	auditPath      = rootPath + "/audit"
)

// recordPaths are the sections of the records the audit log names by their resource.
var recordPaths = map[string]string{patio.ResourceVehicle: vehiclesPath, patio.ResourceClient: clientsPath,
	patio.ResourceDeal: dealsPath}

// pagePaths are the paths above as the templates read them ({{.URL .Paths.Webhooks}}), so a
// page's links come from the same table as its routes.
type pagePaths struct {
	Home, Static, Login, Logout, Language, Password, Team, Keys, Webhooks, Deliveries string
	Vehicles, Clients, Deals, Activities, Financial, Audit                            string
}

// thePaths is the one value of pagePaths.
var thePaths = pagePaths{Home: homePath, Static: staticPath, Login: loginPath, Logout: logoutPath, Language: languagePath,
	Password: passwordPath, Team: teamPath, Keys: keysPath, Webhooks: webhooksPath, Deliveries: deliveriesPath,
	Vehicles: vehiclesPath, Clients: clientsPath, Deals: dealsPath, Activities: activitiesPath, Financial: financialPath,
	Audit: auditPath}

// Paths returns the console's paths, for the templates' links.
func (rq *request) Paths() pagePaths { return thePaths }
