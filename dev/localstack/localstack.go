// Package localstack runs Patio's programs in one process against local engines, as AWS runs them
// as functions: the API and the console served over plain HTTP on loopback, the dispatcher and the
// indexer on the resource tables' streams, the deliverer on the delivery queue, the sweeper and the
// timer on tickers. The local stack (cmd/local: `make run`, with-api) and the console's browser tests
// (dev/consoletest) start it the same way.
//
// It builds every client from the process environment, exactly as the Lambda functions do: the
// caller points the environment at the engines and the tables first (localaws.Stack.Setenv, or
// testenv.Tables).
package localstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/app/consoleapp"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/cognito"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sesmail"
)

// Options says what to run.
type Options struct {
	// Tables maps the template's table logical ids to their local names (localaws.Stack.Tables,
	// testenv.Tables): the dispatcher and the indexer poll the resource tables' streams.
	Tables map[string]string
	// APIAddr and ConsoleAddr are where to serve the API and the console ("127.0.0.1:0" for a free
	// port); empty, not served.
	APIAddr, ConsoleAddr string
	// Checkpoints is the file that keeps the dispatcher's stream positions between runs; the
	// indexer, whose event source mappings have positions of their own as on AWS, keeps its
	// positions in index-checkpoints.json beside it (IndexCheckpoints). Empty: none kept, every
	// start reads each stream from its trim horizon.
	Checkpoints string
	// Logger receives the programs' JSON logs.
	Logger *slog.Logger
	// API wraps the API's handler (cmd/local answers malformed HTTP in the envelope); nil serves it
	// as it is.
	API func(net.Listener) net.Listener
	// Calls, when set, counts every AWS call of the programs by who made it (the local stack's
	// profile: cmd/local -calls).
	Calls *localaws.Calls
	// Dir is the repository's root, whose template.yaml gives each worker's timeout; empty means
	// the root of the Go module containing the working directory.
	Dir string
}

// Stack is the running programs.
type Stack struct {
	// APIURL and ConsoleURL are the servers' base URLs (http://127.0.0.1:<port>).
	APIURL, ConsoleURL string
	// Config and AWS are the configuration every program was built from.
	Config app.Config
	AWS    aws.Config
	// Store is the DynamoDB store on the configured tables.
	Store *dynamostore.Store
	// Directory is the console's user pool.
	Directory *cognito.Directory

	servers []*http.Server
	done    chan error
}

// Start starts what o asks for; the workers stop with ctx, the servers with Shutdown.
func Start(ctx context.Context, o Options) (*Stack, error) {
	fns := []app.Function{app.VehiclesFunction, app.ClientsFunction, app.DealsFunction, app.DispatcherFunction,
		app.IndexerFunction, app.DelivererFunction, app.SweeperFunction, app.TimerFunction}
	if o.ConsoleAddr != "" {
		fns = append(fns, app.ConsoleFunction)
	}
	conf, err := app.LoadConfig(os.LookupEnv, fns...)
	if err != nil {
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = conf.Logger()
	}
	cfg, err := awsconfig.Load(ctx)
	if err != nil {
		return nil, err
	}
	s := &Stack{Config: conf, AWS: cfg, Store: dynamostore.New(cfg, conf.Tables), done: make(chan error, 2)}
	as := func(component string) aws.Config {
		if o.Calls == nil {
			return cfg
		}
		return o.Calls.Attach(cfg, component)
	}
	if err := startWorkers(ctx, as, conf, logger, o); err != nil {
		return nil, err
	}
	if o.APIAddr != "" {
		h, err := app.API(as("api"), conf, logger, app.Vehicles, app.Clients, app.Deals)
		if err != nil {
			return nil, err
		}
		if s.APIURL, err = s.serve(o.APIAddr, h, o.API); err != nil {
			return nil, err
		}
	}
	if o.ConsoleAddr != "" {
		s.Directory = cognito.New(cfg, conf.UserPoolID, conf.UserPoolClientID)
		h, err := consoleapp.Handler(as("console"), conf, logger, consoleapp.Options{KeyPrefix: patio.TestKeyPrefix})
		if err != nil {
			return nil, errors.Join(err, s.Shutdown())
		}
		if s.ConsoleURL, err = s.serve(o.ConsoleAddr, h, nil); err != nil {
			return nil, errors.Join(err, s.Shutdown())
		}
	}
	return s, nil
}

// serve serves h on addr and returns its base URL.
func (s *Stack) serve(addr string, h http.Handler, wrap func(net.Listener) net.Listener) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	if wrap != nil {
		ln = wrap(ln)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.servers = append(s.servers, srv)
	go func() { s.done <- srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Wait serves until ctx ends or a server fails, then shuts the servers down.
func (s *Stack) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case err := <-s.done:
		return errors.Join(err, s.Shutdown())
	}
	return s.Shutdown()
}

// Shutdown stops the servers, letting requests in flight finish for a few seconds.
func (s *Stack) Shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, srv := range s.servers {
		errs = append(errs, srv.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// startWorkers runs the workers' own handlers as AWS would: the dispatcher and the indexer on the
// resource tables' streams (DynamoDB Local), each with pollers and positions of its own as each has
// event source mappings of its own, the deliverer on the delivery queue (moto), the sweeper and the
// timer on tickers. It verifies the sender identity in moto's SES first (alerts and invitations
// come from it). The pollers stop with ctx.
func startWorkers(ctx context.Context, as func(component string) aws.Config, c app.Config, logger *slog.Logger, o Options) error {
	if err := sesmail.New(as("ses"), c.AlertSender).VerifySender(ctx); err != nil {
		return err
	}
	dispatch, err := workers.Dispatcher(as("dispatcher"), c, logger)
	if err != nil {
		return err
	}
	index, err := app.Indexer(as("indexer"), c, logger)
	if err != nil {
		return err
	}
	deliver, err := workers.Deliverer(as("deliverer"), c, logger)
	if err != nil {
		return err
	}
	sweep, err := workers.Sweeper(as("sweeper"), c, logger)
	if err != nil {
		return err
	}
	// Each handler call gets its function's timeout, as Lambda gives each invocation.
	dir := o.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	path, err := samtemplate.Find(dir)
	if err != nil {
		return err
	}
	tpl, err := samtemplate.Load(path)
	if err != nil {
		return err
	}
	deliverTimeout, err := tpl.FunctionTimeout("DelivererFunction")
	if err != nil {
		return err
	}
	// The stream functions, each on its streams with its event source mappings' filters and its
	// own positions.
	dispatchPoll, err := streamPoll(tpl, "DispatcherFunction", o.Tables, o.Checkpoints)
	if err != nil {
		return err
	}
	indexPoll, err := streamPoll(tpl, "IndexerFunction", o.Tables, IndexCheckpoints(o.Checkpoints))
	if err != nil {
		return err
	}
	for _, p := range []struct {
		name string
		h    func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
		poll streamPolling
	}{{"dispatcher", dispatch, dispatchPoll}, {"indexer", index, indexPoll}} {
		go func() {
			if err := localaws.PollStreams(ctx, as("streams"), p.poll.tables, p.h, logger, p.poll.options); err != nil {
				logger.Error("localstack: stream poller stopped", slog.String("function", p.name), slog.String("error", err.Error()))
			}
		}()
	}
	go func() {
		if err := localaws.PollQueue(ctx, as("queue"), c.QueueURL, deliver, logger, deliverTimeout); err != nil {
			logger.Error("localstack: queue poller stopped", slog.String("error", err.Error()))
		}
	}()
	timer, err := app.NewTimer(as("timer"), c, c.TimerPeriod)
	if err != nil {
		return err
	}
	go localaws.RunTimer(ctx, c.TimerPeriod, timer.Tick, logger)
	// The sweep runs every minute on AWS; with a compressed WEBHOOK_SWEEP_AFTER, more often.
	go localaws.Every(ctx, min(time.Minute, c.SweepAfter/2), sweep, logger)
	return nil
}

// IndexCheckpoints is the file that keeps the indexer's stream positions beside the dispatcher's
// checkpoints file: index-checkpoints.json in its directory ("" for "": none kept).
func IndexCheckpoints(checkpoints string) string {
	if checkpoints == "" {
		return ""
	}
	path := filepath.Join(filepath.Dir(checkpoints), "index-checkpoints.json")
	if path == filepath.Clean(checkpoints) {
		return checkpoints + ".indexer" // never the dispatcher's own file
	}
	return path
}

// streamPolling is how a stream function is polled: its tables' names and the poller's options.
type streamPolling struct {
	tables  []string
	options localaws.StreamOptions
}

// streamPoll reads how Lambda would poll the function's streams from the template: the tables of
// its DynamoDB event sources (by their local names), each with its filter, and its timeout; the
// positions are kept in checkpoints ("" for none).
func streamPoll(tpl *samtemplate.Template, function string, tables map[string]string, checkpoints string) (streamPolling, error) {
	timeout, err := tpl.FunctionTimeout(function)
	if err != nil {
		return streamPolling{}, err
	}
	patterns, err := tpl.StreamFilters(function)
	if err != nil {
		return streamPolling{}, err
	}
	p := streamPolling{options: localaws.StreamOptions{Checkpoints: checkpoints, Timeout: timeout, Filters: map[string]localaws.Filter{}}}
	for _, id := range slices.Sorted(maps.Keys(patterns)) {
		name, ok := tables[id]
		if !ok {
			return streamPolling{}, fmt.Errorf("localstack: template.yaml has no %s", id)
		}
		p.tables = append(p.tables, name)
		if p.options.Filters[name], err = localaws.ParseFilter(patterns[id]); err != nil {
			return streamPolling{}, err
		}
	}
	if len(p.tables) == 0 {
		return streamPolling{}, fmt.Errorf("localstack: %s has no DynamoDB stream event source in template.yaml", function)
	}
	return p, nil
}

// Creds are a local team, its API key and its owner's sign-in to the console.
type Creds struct {
	TeamID string `json:"team_id"`
	KeyID  string `json:"key_id"`
	Key    string `json:"key"`
	// OwnerEmail and OwnerPassword sign the team's owner in to the console (no change asked).
	OwnerEmail    string `json:"owner_email,omitempty"`
	OwnerPassword string `json:"owner_password,omitempty"`
}

// NewTeam creates a team named name on the Autoshopping plan (the highest limits, no daily limit)
// with a key of every scope, and an owner who signs in to the console with a password of their
// own (see Owner).
func (s *Stack) NewTeam(ctx context.Context, name, ownerEmail string) (Creds, error) {
	team, err := patio.NewTeam(name, ownerEmail, string(patio.PlanAutoshopping))
	if err != nil {
		return Creds{}, err
	}
	if err := accountdb.NewAccounts(s.Store.DB()).CreateTeam(ctx, team); err != nil {
		return Creds{}, err
	}
	key, secret, err := patio.NewAPIKey(team.ID, "local", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		return Creds{}, err
	}
	if err := accountdb.NewAccounts(s.Store.DB()).CreateKey(ctx, key); err != nil {
		return Creds{}, err
	}
	return Creds{TeamID: team.ID, KeyID: key.ID, Key: secret}, nil
}

// Owner makes email an active owner of the team (unless a member already) and gives their user
// the permanent password: the user pool emulator forgets its users when it stops, so the local
// stack calls this at every start. It returns the password, a new one when password is "".
func (s *Stack) Owner(ctx context.Context, teamID, email, password string) (string, error) {
	if s.Directory == nil {
		return "", errors.New("localstack: the console is not served")
	}
	if password == "" {
		var err error
		if password, err = patio.NewTemporaryPassword(); err != nil {
			return "", err
		}
	}
	ts := patio.NewTimestamp(time.Now())
	err := accountdb.NewMembers(s.Store.DB()).AddMember(ctx, patio.Member{TeamID: teamID, Email: email, Role: patio.RoleOwner, Status: patio.MemberActive,
		InvitedBy: patio.InvitedByLocalStack, CreatedAt: ts, UpdatedAt: ts})
	if err != nil && !patio.IsKind(err, patio.KindConflict) {
		return "", err
	}
	return password, s.Directory.SetPassword(ctx, email, password)
}

// RecreateUsers gives every member of every team but except a user with the temporary password
// temp, which their next sign-in must change: the emulator forgot them at its last stop, and the
// members are what the local stack keeps. It returns how many it recreated.
func (s *Stack) RecreateUsers(ctx context.Context, except, temp string) (int, error) {
	if s.Directory == nil {
		return 0, errors.New("localstack: the console is not served")
	}
	client := dynamodb.NewFromConfig(s.AWS)
	seen := map[string]bool{except: true}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{
		TableName:                 aws.String(s.Config.Tables.Accounts),
		FilterExpression:          aws.String("begins_with(sk, :m)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":m": &types.AttributeValueMemberS{Value: "member#"}},
		ProjectionExpression:      aws.String("email"),
	})
	n := 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return n, err
		}
		for _, item := range page.Items {
			email, _ := item["email"].(*types.AttributeValueMemberS)
			if email == nil || seen[email.Value] {
				continue
			}
			seen[email.Value] = true
			if err := s.Directory.ResetUser(ctx, email.Value, temp); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// LocalEnv adds the local-only webhook knobs to the engines' environment (and so to
// .data/stack.json, which the operators' tool reads): private targets are allowed, so a developer
// can point a webhook at a receiver on this machine. WEBHOOK_* variables and LOG_LEVEL already set
// in the environment (WEBHOOK_RETRY_SCHEDULE, WEBHOOK_CA_FILE, ...) are passed on as they are,
// over the template's defaults. `make run`, with-api and the bench's stack all take it.
func LocalEnv(st *localaws.Stack) {
	st.Env["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "true"
	for _, k := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_RETRY_SCHEDULE", "WEBHOOK_TIMEOUT", "WEBHOOK_MAX_HOP",
		"WEBHOOK_SWEEP_AFTER", "WEBHOOK_CA_FILE", "LOG_LEVEL"} {
		if v, ok := os.LookupEnv(k); ok {
			st.Env[k] = v
		}
	}
}
