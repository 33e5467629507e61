// Command deliverer is the Lambda function on the webhook delivery queue: each message is one
// signed POST attempt (or a hop towards a later one), recorded in the delivery log, with the next
// attempt queued on failure and the deactivation rule applied after the sixth.
package main

import (
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
)

func main() { app.Start(workers.LambdaDeliverer) }
