package samtemplate

import (
	"context"
	"errors"
	"maps"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// setupHTTP is the HTTP client of Provision's calls, whatever the clients it is given use: it has
// no timeout of its own per attempt (ctx bounds the whole). An engine busy with other work (moto
// serving every test package, DynamoDB Local building a table's indexes) answers a set-up call in
// many seconds, where a request's client gives up after a few; and a create retried after a
// timeout may find its first attempt done.
var setupHTTP = awshttp.NewBuildableClient()

// Resources are the local names of a template's tables and queues once Provision has created
// them (and its user pools), and the environment the template's functions see with those names.
type Resources struct {
	// Tables maps each table's logical id to its name, the prefix plus the logical id
	// ("VehiclesTable" → "patio-VehiclesTable").
	Tables map[string]string
	// Queues maps each queue's logical id to its URL, which is what !Ref of a queue returns.
	Queues map[string]string
	// Buckets maps each bucket's logical id to the bucket moto holds for it.
	Buckets map[string]Bucket
	// Env is the environment of one process that runs every function (see Template.Env), resolved
	// to these tables and queues: VEHICLES_TABLE, DELIVERY_QUEUE_URL, LOG_LEVEL and the like.
	Env map[string]string
}

// Provision creates every table, queue and Cognito user pool (with its clients) of tpl, each named
// prefix plus its logical id: the tables on the DynamoDB endpoint of db (DynamoDB Local), the queues
// and the user pools on the endpoint of queues (moto serves SQS and Cognito on one endpoint). It is the one way the local stack (`make run`), the tests and the bench create what
// template.yaml declares.
//
// Provision is idempotent. A table that already exists (a persistent local database) is kept with
// its items. When its indexes or stream differ from the template's (local data of an older
// release), it is rebuilt with the template's schema and its items copied back, without firing
// its stream (see rebuildTable); only a different primary key makes Provision fail and say so,
// since the items could not be kept. A queue that
// exists with the same attributes is kept too. A fresh prefix gives a fresh set.
//
// Tables are ACTIVE, with TTL enabled where the template enables it, when Provision returns. It
// fails when either client is nil, when an engine refuses a request, and when the functions'
// environment cannot be resolved (see Template.Env).
func Provision(ctx context.Context, db *dynamodb.Client, queues *sqs.Client, tpl *Template, prefix string) (Resources, error) {
	if db == nil || queues == nil {
		return Resources{}, errors.New("samtemplate: Provision needs a DynamoDB and an SQS client")
	}
	db = dynamodb.New(db.Options(), func(o *dynamodb.Options) { o.HTTPClient = setupHTTP })
	queues = sqs.New(queues.Options(), func(o *sqs.Options) { o.HTTPClient = setupHTTP })
	tables, err := createTables(ctx, db, tpl, prefix)
	if err != nil {
		return Resources{}, err
	}
	queueRefs, err := createQueues(ctx, queues, tpl, prefix)
	if err != nil {
		return Resources{}, err
	}
	pools, err := createUserPools(ctx, cognitoOn(queues), tpl, prefix)
	if err != nil {
		return Resources{}, err
	}
	buckets, err := createBuckets(ctx, queues, tpl, prefix)
	if err != nil {
		return Resources{}, err
	}
	refs := maps.Clone(tables)
	maps.Copy(refs, queueRefs)
	maps.Copy(refs, pools)
	for id, b := range buckets {
		refs[id] = b.Name
	}
	env, err := tpl.Env(refs)
	if err != nil {
		return Resources{}, err
	}
	// The photos' public address: on AWS the distribution's, locally the bucket's in moto.
	if b, ok := buckets["PhotosBucket"]; ok {
		env["PHOTOS_URL"] = b.URL
		// Where the local stack reads the bucket's notifications (dev/localstack).
		env["PHOTOS_EVENTS_QUEUE_URL"] = b.Events
	}
	urls := make(map[string]string, len(tpl.queues))
	for _, q := range tpl.queues {
		urls[q.LogicalID] = queueRefs[q.LogicalID]
	}
	return Resources{Tables: tables, Queues: urls, Buckets: buckets, Env: env}, nil
}
