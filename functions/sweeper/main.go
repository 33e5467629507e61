// Command sweeper is the Lambda function the schedule runs every minute: it queues again the
// attempts of pending webhook deliveries whose queue message was lost (more than a few minutes
// overdue), so that no delivery stays pending for ever.
package main

import (
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
)

func main() { app.Start(workers.LambdaSweeper) }
