package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/usageplans"
)

// gatewayKeys gives a team its API Gateway key and keeps that key in the usage plan of the team's
// plan (docs/edge.md). *usageplans.Gateway implements it; the tool has none (nil) when no usage
// plans are configured, as on the local stack.
type gatewayKeys interface {
	// Create creates an enabled key for the team, attached to its plan's usage plan, and returns
	// the key's id and value.
	Create(ctx context.Context, team patio.Team) (id, value string, err error)
	// Move puts the key in plan's usage plan only; rerunning it completes a partial move.
	Move(ctx context.Context, keyID string, plan patio.Plan) error
	// Delete deletes the key; an unknown key is not an error.
	Delete(ctx context.Context, keyID string) error
	// PublishKeyCount publishes the account's API key count to CloudWatch in namespace and
	// returns it.
	PublishKeyCount(ctx context.Context, namespace string) (int, error)
}

// defaultMetricsNamespace is template.yaml's MetricsNamespace default; METRICS_NAMESPACE overrides it.
const defaultMetricsNamespace = "Patio"

// publishKeyCount publishes the account's API key count (the metric of the template's
// ApiKeyCountAlarm: AWS publishes none) after a key was created or deleted. A failure is a warning
// on stderr: the key change itself is done, and the next change publishes again.
func (c *cli) publishKeyCount(ctx context.Context) {
	ns := c.conf.MetricsNamespace
	if ns == "" {
		ns = defaultMetricsNamespace
	}
	if _, err := c.edge.PublishKeyCount(context.WithoutCancel(ctx), ns); err != nil {
		fmt.Fprintf(os.Stderr, "admin: warning: %v\n", err)
	}
}

// usagePlansHelp documents --usage-plans.
const usagePlansHelp = "where the API Gateway usage plan ids are: env (USAGE_PLAN_STARTER, USAGE_PLAN_PROFESSIONAL, " +
	"USAGE_PLAN_AUTOSHOPPING), stack:NAME (the outputs of CloudFormation stack NAME) or none; " +
	"default env when those variables are set, else none. With usage plans, teams create and teams set-plan " +
	"keep each team's API Gateway key in its plan's usage plan"

// connectEdge sets c.edge from --usage-plans (see usagePlansHelp).
func (c *cli) connectEdge(ctx context.Context, cfg aws.Config) error {
	source := c.usagePlans
	var ids usageplans.IDs
	switch {
	case source == "" || source == "env":
		fromEnv, ok, err := usageplans.FromEnv()
		if err != nil {
			return err
		}
		if !ok {
			if source == "env" {
				return fmt.Errorf("--usage-plans env: set %s, %s and %s", usageplans.EnvVar(patio.PlanStarter),
					usageplans.EnvVar(patio.PlanProfessional), usageplans.EnvVar(patio.PlanAutoshopping))
			}
			return nil
		}
		ids = fromEnv
	case strings.HasPrefix(source, "stack:") && len(source) > len("stack:"):
		fromStack, err := usageplans.FromStack(ctx, cfg, strings.TrimPrefix(source, "stack:"))
		if err != nil {
			return err
		}
		ids = fromStack
	case source == "none":
		return nil
	default:
		return fmt.Errorf("--usage-plans %q: want env, stack:NAME or none", source)
	}
	g, err := usageplans.New(cfg, ids)
	if err != nil {
		return err
	}
	c.edge = g
	return nil
}

// createTeam stores a new team. With usage plans it first creates the team's API Gateway key in
// its plan's usage plan and stores the key with the team; if storing fails, the key is deleted.
func (c *cli) createTeam(ctx context.Context, t *patio.Team) error {
	if c.edge == nil {
		c.warnNoEdge(t.ID)
		return accountdb.NewAccounts(c.store.DB()).CreateTeam(ctx, *t)
	}
	id, value, err := c.edge.Create(ctx, *t)
	if err != nil {
		return err
	}
	defer c.publishKeyCount(ctx)
	t.GatewayKeyID, t.GatewayKey = id, value
	if err := accountdb.NewAccounts(c.store.DB()).CreateTeam(ctx, *t); err != nil {
		if derr := c.edge.Delete(context.WithoutCancel(ctx), id); derr != nil {
			err = errors.Join(err, derr)
		}
		return err
	}
	return nil
}

// setPlan changes the team's plan, which the application applies from the next request. With usage
// plans it then moves the team's API Gateway key to the new plan's usage plan, or gives the team a
// key if it has none (a team created without usage plans). Rerunning it after a failure completes
// the move.
func (c *cli) setPlan(ctx context.Context, teamID string, plan patio.Plan) (patio.Team, error) {
	t, err := accountdb.NewAccounts(c.store.DB()).SetPlan(ctx, teamID, plan)
	if err != nil {
		return patio.Team{}, err
	}
	switch {
	case c.edge == nil:
		if t.GatewayKeyID == "" {
			c.warnNoEdge(t.ID)
		}
		return t, nil
	case t.GatewayKeyID == "":
		id, value, err := c.edge.Create(ctx, t)
		if err != nil {
			return patio.Team{}, err
		}
		defer c.publishKeyCount(ctx)
		if t, err = accountdb.NewAccounts(c.store.DB()).SetGatewayKey(ctx, teamID, id, value); err != nil {
			if derr := c.edge.Delete(context.WithoutCancel(ctx), id); derr != nil {
				err = errors.Join(err, derr)
			}
			return patio.Team{}, err
		}
		return t, nil
	default:
		return t, c.edge.Move(ctx, t.GatewayKeyID, plan)
	}
}

// warnNoEdge tells the operator, on stderr, that a team on AWS has no API Gateway key: API Gateway
// refuses its requests until it gets one.
func (c *cli) warnNoEdge(teamID string) {
	if c.prefix != patio.LiveKeyPrefix {
		return // the local stack has no API Gateway
	}
	fmt.Fprintf(os.Stderr, "admin: warning: no usage plans configured (--usage-plans): team %s has no API Gateway key, "+
		"so API Gateway refuses its requests (403) until `teams set-plan` runs with --usage-plans\n", teamID)
}
