// Command indexer is the Lambda function on the streams of the vehicles, clients and deals tables
// that keeps q's word items: for each insert, modification or removal of a record's row it puts
// the word items the row's new image has and deletes those only its old image had, in the same
// table (BatchWriteItem). It fires no event and makes no HTTP requests.
package main

import (
	"github.com/patio-dev/patio/shared/app"
)

func main() { app.Start(app.LambdaIndexer) }
