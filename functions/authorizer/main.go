// Command authorizer is the Lambda REQUEST authorizer of the API Gateway REST API: it authenticates
// the Bearer key with the handlers' own code (shared/authorizer) and gives API Gateway the team's
// usage-plan key. Unknown, revoked or malformed keys fail as "Unauthorized" (401).
package main

import "github.com/patio-dev/patio/shared/app"

func main() {
	app.Start(app.LambdaAuthorizer)
}
