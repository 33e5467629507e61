// Command dispatcher is the Lambda function on the streams of the vehicles, clients and deals tables:
// it derives the webhook events of each change and queues one delivery per subscribed active
// webhook (recording skipped deliveries for disabled ones). It makes no HTTP requests.
package main

import (
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
)

func main() { app.Start(workers.LambdaDispatcher) }
