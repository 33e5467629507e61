// Command timer is the Lambda function that fires the timed events of activities and financial
// records (activity.due_soon, activity.overdue, financial.overdue): scheduled every minute, it
// marks each record whose alarm falls due, and the dispatcher turns the mark into the event.
package main

import "github.com/patio-dev/patio/shared/app"

func main() { app.Start(app.LambdaTimer) }
