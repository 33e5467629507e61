// Command console is the console function: the dealership's web application (package console)
// behind its own API Gateway REST API.
package main

import (
	_ "time/tzdata" // team time zones, whatever the runtime has

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/consoleapp"
)

func main() { app.Start(consoleapp.Lambda) }
