package console

// The console's paths: the one table the routes (routes.go) are registered from and every link
// and redirect the handlers build is made of, so that a page's path is written once. A section's
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
