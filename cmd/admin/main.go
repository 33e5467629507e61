// Command admin is the operators' tool: teams, API keys, webhooks and their deliveries, the
// dashboard modules (activities, financial records) and data maintenance.
//
// It talks to the tables named by ACCOUNTS_TABLE (and the other *_TABLE variables) with the standard
// AWS configuration. With no table configured it talks to the local stack that `make run` started,
// whose endpoints and table names that stack writes to .data/stack.json.
//
// With usage plans (--usage-plans env|stack:NAME, or the USAGE_PLAN_* variables), teams create and
// teams set-plan also keep each team's API Gateway key in its plan's usage plan (edge.go,
// docs/edge.md). The local stack has no API Gateway and needs none.
//
// With --json every command prints exactly one JSON object on stdout.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"text/tabwriter"
	_ "time/tzdata" // team time zones, whatever the machine has

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// StackFile is where the local stack records its endpoints and table names, relative to the
// repository root.
const StackFile = ".data/stack.json"

func main() {
	root, c := newRoot(os.Stdout)
	if err := root.ExecuteContext(context.Background()); err != nil {
		if !c.reported {
			_ = c.fail(err)
		}
		os.Exit(1)
	}
}

// cli carries the flags and output shared by every command.
type cli struct {
	out      io.Writer
	json     bool
	conf     app.Config
	store    *dynamostore.Store
	prefix   string // key prefix: dk_test_ on the local stack, dk_live_ elsewhere
	reported bool   // an error was already printed

	// usagePlans is --usage-plans; edge is set from it, nil without usage plans (see edge.go).
	usagePlans string
	edge       gatewayKeys
}

func newRoot(out io.Writer) (*cobra.Command, *cli) {
	c := &cli{out: out}
	root := &cobra.Command{
		Use:   "admin",
		Short: "Operate Patio: teams, API keys, members, webhooks, deliveries, activities, financial records, maintenance",
		Long: `Operate Patio: teams and their plans, API keys, the console's members (invitations and roles),
webhooks and their deliveries, the console's modules (activities and financial records) and the
maintenance of stored data. Every change is written to the team's audit log as this operator's
(the machine's user at its host; PATIO_OPERATOR names another).

With ACCOUNTS_TABLE (and the other *_TABLE variables) set, it works on the tables they name with
the standard AWS configuration; otherwise on the local stack that ` + "`make run`" + ` started
(.data/stack.json). With --json every command prints exactly one JSON object.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Every change is audited as this operator's (the team's audit log, beside the
			// console's people).
			cmd.SetContext(patio.WithActor(cmd.Context(), operator()))
			return c.connect(cmd.Context())
		},
	}
	root.PersistentFlags().BoolVar(&c.json, "json", false, "print one JSON object on stdout")
	root.PersistentFlags().StringVar(&c.usagePlans, "usage-plans", "", usagePlansHelp)
	root.AddCommand(c.teamsCmd(), c.keysCmd())
	root.AddCommand(c.webhooksCmd(), c.deliveriesCmd())
	root.AddCommand(c.maintenanceCmd())
	root.AddCommand(c.activitiesCmd(), c.financialCmd())
	root.AddCommand(c.membersCmd())
	root.SetOut(out)
	return root, c
}

// connect finds the target: the environment when ACCOUNTS_TABLE is set, else the local stack file,
// whose variables become the environment (the AWS SDK reads its endpoints there). The configuration
// is then read once, for AdminTool.
func (c *cli) connect(ctx context.Context) error {
	c.prefix = patio.LiveKeyPrefix
	if os.Getenv("ACCOUNTS_TABLE") == "" {
		env, err := readStackFile()
		if err != nil {
			return c.fail(err)
		}
		for k, v := range env {
			os.Setenv(k, v)
		}
		c.prefix = patio.TestKeyPrefix
	}
	conf, err := app.LoadConfig(os.LookupEnv, app.AdminTool)
	if err != nil {
		return c.fail(err)
	}
	c.conf = conf
	cfg, err := awsconfig.Load(ctx)
	if err != nil {
		return c.fail(err)
	}
	c.store = dynamostore.New(cfg, conf.Tables)
	if err := c.connectEdge(ctx, cfg); err != nil {
		return c.fail(err)
	}
	return nil
}

// operator is who the operators' tool acts as in the audit log: the machine's user at its host
// (PATIO_OPERATOR overrides), with a request id of its own per command. The user is $USER, else
// the account the process runs as (what whoami answers).
func operator() patio.Actor {
	name := os.Getenv("PATIO_OPERATOR")
	if name == "" {
		name = os.Getenv("USER")
		if name == "" {
			if u, err := user.Current(); err == nil {
				name = u.Username
			}
		}
		if host, err := os.Hostname(); err == nil && host != "" && name != "" {
			name += "@" + host
		}
	}
	if strings.Trim(name, "@") == "" {
		name = "operator"
	}
	return patio.Actor{Kind: patio.ActorOperator, ID: name, RequestID: uuid.NewString()}
}

func readStackFile() (map[string]string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, StackFile))
		if err == nil {
			var env map[string]string
			if err := json.Unmarshal(data, &env); err != nil {
				return nil, fmt.Errorf("%s: %w", StackFile, err)
			}
			return env, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("no target: set ACCOUNTS_TABLE (and the AWS environment) or start the local stack with `make run`")
		}
		dir = parent
	}
}

// print writes v as one JSON object with --json, or as text.
func (c *cli) print(v any, text func(w io.Writer)) error {
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	text(tw)
	return tw.Flush()
}

// fail reports err (as {"error": ...} with --json) and returns it so the command exits non-zero.
func (c *cli) fail(err error) error {
	c.reported = true
	msg := err.Error()
	var pe *patio.Error
	if errors.As(err, &pe) && pe.Kind != patio.KindInternal {
		msg = pe.Message
	}
	if c.json {
		_ = json.NewEncoder(c.out).Encode(map[string]string{"error": msg})
	} else {
		fmt.Fprintln(os.Stderr, "admin:", msg)
	}
	return err
}

// run wraps a command body so that its error is reported once.
func (c *cli) run(f func(ctx context.Context) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if err := f(cmd.Context()); err != nil {
			return c.fail(err)
		}
		return nil
	}
}

func (c *cli) teamsCmd() *cobra.Command {
	teams := &cobra.Command{Use: "teams", Short: "Create and inspect teams"}
	teams.AddCommand(c.teamCreateCmd(), c.teamGetCmd(), c.teamSetPlanCmd(), c.teamSetTimeZoneCmd())
	return teams
}

func (c *cli) teamCreateCmd() *cobra.Command {
	var name, email, plan string
	create := &cobra.Command{Use: "create", Short: "Create a team", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			t, err := patio.NewTeam(name, email, plan)
			if err != nil {
				return err
			}
			if err := c.createTeam(ctx, &t); err != nil {
				return err
			}
			if err := patio.Audit(ctx, c.store, t.ID, "team.create", "team:"+t.ID, "name", "email", "plan"); err != nil {
				return err
			}
			return c.printTeam(t)
		})}
	create.Flags().StringVar(&name, "name", "", "team name (required)")
	create.Flags().StringVar(&email, "email", "", "contact email for alerts (required)")
	create.Flags().StringVar(&plan, "plan", "starter", "plan: starter, professional or autoshopping")
	mustRequire(create, "name", "email")
	return create
}

func (c *cli) teamGetCmd() *cobra.Command {
	var team string
	get := &cobra.Command{Use: "get", Short: "Show a team", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			t, err := accountdb.NewAccounts(c.store.DB()).Team(ctx, team)
			if err != nil {
				return err
			}
			return c.printTeam(t)
		})}
	get.Flags().StringVar(&team, "team", "", "team id (required)")
	mustRequire(get, "team")
	return get
}

func (c *cli) teamSetPlanCmd() *cobra.Command {
	var team, plan string
	setPlan := &cobra.Command{Use: "set-plan", Short: "Change a team's plan (applies to the next request)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			p, err := patio.ParsePlan(plan)
			if err != nil {
				return err
			}
			t, err := c.setPlan(ctx, team, p)
			if err != nil {
				return err
			}
			if err := patio.Audit(ctx, c.store, t.ID, "team.plan", "team:"+t.ID, "plan"); err != nil {
				return err
			}
			return c.printTeam(t)
		})}
	setPlan.Flags().StringVar(&team, "team", "", "team id (required)")
	setPlan.Flags().StringVar(&plan, "plan", "", "plan: starter, professional or autoshopping (required)")
	mustRequire(setPlan, "team", "plan")
	return setPlan
}

func (c *cli) teamSetTimeZoneCmd() *cobra.Command {
	var team, tz string
	setTZ := &cobra.Command{Use: "set-timezone", Short: "Set a team's time zone (IANA name; dates that expire use it)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			if _, err := patio.CheckTimeZone(tz); err != nil {
				return err
			}
			t, err := accountdb.NewAccounts(c.store.DB()).SetTimeZone(ctx, team, tz)
			if err != nil {
				return err
			}
			if err := patio.Audit(ctx, c.store, t.ID, "team.settings", "team:"+t.ID, "time_zone"); err != nil {
				return err
			}
			return c.printTeam(t)
		})}
	setTZ.Flags().StringVar(&team, "team", "", "team id (required)")
	setTZ.Flags().StringVar(&tz, "timezone", "", "IANA time zone, e.g. America/Sao_Paulo or Asia/Tokyo (required)")
	mustRequire(setTZ, "team", "timezone")
	return setTZ
}

func (c *cli) printTeam(t patio.Team) error {
	return c.print(t, func(w io.Writer) {
		fmt.Fprintf(w, "id\t%s\nname\t%s\nemail\t%s\nplan\t%s\ntime_zone\t%s\ncreated_at\t%s\n", t.ID, t.Name, t.Email, t.Plan,
			t.TimeZone, t.CreatedAt)
		if t.GatewayKeyID != "" {
			fmt.Fprintf(w, "gateway_key_id\t%s\n", t.GatewayKeyID)
		}
	})
}

func (c *cli) keysCmd() *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Create, list and revoke API keys"}
	var team, scopes, name, id string

	create := &cobra.Command{Use: "create", Short: "Create an API key (the key is shown once)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			if _, err := accountdb.NewAccounts(c.store.DB()).Team(ctx, team); err != nil {
				return err
			}
			sc, err := patio.ParseScopes(scopes)
			if err != nil {
				return err
			}
			k, secret, err := c.keys().Create(ctx, team, name, sc)
			if err != nil {
				return err
			}
			out := struct {
				patio.APIKey
				Key string `json:"key"`
			}{k, secret}
			return c.print(out, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nkey\t%s\nscopes\t%s\n(the key is shown only now)\n", k.ID, secret, strings.Join(k.Scopes, ","))
			})
		})}
	create.Flags().StringVar(&team, "team", "", "team id (required)")
	create.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes (default: all six)")
	create.Flags().StringVar(&name, "name", "", "a label for the key")
	mustRequire(create, "team")

	revoke := &cobra.Command{Use: "revoke", Short: "Revoke an API key (applies to the next request)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			k, err := c.keys().Revoke(ctx, "", id)
			if err != nil {
				return err
			}
			return c.print(k, func(w io.Writer) { fmt.Fprintf(w, "id\t%s\nstatus\t%s\n", k.ID, k.Status) })
		})}
	revoke.Flags().StringVar(&id, "id", "", "key id (required)")
	mustRequire(revoke, "id")

	list := &cobra.Command{Use: "list", Short: "List a team's API keys", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			ks, err := accountdb.NewAccounts(c.store.DB()).ListKeys(ctx, team)
			if err != nil {
				return err
			}
			return c.print(map[string]any{"keys": ks}, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tSTATUS\tSCOPES\tCREATED")
				for _, k := range ks {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Status, strings.Join(k.Scopes, ","), k.CreatedAt)
				}
			})
		})}
	list.Flags().StringVar(&team, "team", "", "team id (required)")
	mustRequire(list, "team")

	keys.AddCommand(create, revoke, list)
	return keys
}

// keys is the API key use cases, on the configured store, with this tool's key prefix.
func (c *cli) keys() patio.Keys {
	return patio.Keys{Store: accountdb.NewAccounts(c.store.DB()), Audit: c.store, Prefix: c.prefix}
}

func mustRequire(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if err := cmd.MarkFlagRequired(n); err != nil {
			panic(err)
		}
	}
}
