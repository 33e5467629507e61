// Package usageplans is the API Gateway adapter of the edge's metering: it gives a team an API
// Gateway API key and keeps that key in the usage plan of the team's plan. template.yaml defines one
// usage plan per plan as a coarse outer guard, looser than the application's exact limits; the
// authorizer returns the team's key value as usageIdentifierKey, so API Gateway meters the team
// against its usage plan (docs/edge.md).
//
// API Gateway allows 10,000 API keys per account and region, so one key per team caps the number of
// teams a deployment can hold; docs/edge.md says how to go past it. AWS publishes no metric of the
// count, so PublishKeyCount does (CloudWatch), for the alarm on it.
package usageplans

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/patio-dev/patio/shared/patio"
)

// IDs maps each plan to the id of its API Gateway usage plan.
type IDs map[patio.Plan]string

// EnvVar returns the environment variable that holds a plan's usage plan id:
// USAGE_PLAN_STARTER, USAGE_PLAN_PROFESSIONAL, USAGE_PLAN_AUTOSHOPPING.
func EnvVar(p patio.Plan) string { return "USAGE_PLAN_" + strings.ToUpper(string(p)) }

// OutputKey returns the template.yaml output that holds a plan's usage plan id:
// StarterUsagePlanId, ProfessionalUsagePlanId, AutoshoppingUsagePlanId.
func OutputKey(p patio.Plan) string {
	s := string(p)
	if s == "" {
		return "UsagePlanId"
	}
	return strings.ToUpper(s[:1]) + s[1:] + "UsagePlanId"
}

// FromEnv reads the usage plan ids from the EnvVar variables. It returns ok false when none is set,
// and an error when only some are.
func FromEnv() (ids IDs, ok bool, err error) {
	ids = IDs{}
	var missing []string
	for _, p := range patio.Plans {
		if v := os.Getenv(EnvVar(p)); v != "" {
			ids[p] = v
		} else {
			missing = append(missing, EnvVar(p))
		}
	}
	if len(ids) == 0 {
		return nil, false, nil
	}
	if len(missing) > 0 {
		return nil, false, fmt.Errorf("usageplans: %s not set", strings.Join(missing, ", "))
	}
	return ids, true, nil
}

// FromStack reads the usage plan ids from the OutputKey outputs of a deployed CloudFormation stack.
// It fails when the stack cannot be described or lacks one of the outputs.
func FromStack(ctx context.Context, cfg aws.Config, stack string) (IDs, error) {
	out, err := cloudformation.NewFromConfig(cfg).DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stack)})
	if err != nil {
		return nil, fmt.Errorf("usageplans: describe stack %s: %w", stack, err)
	}
	if len(out.Stacks) != 1 {
		return nil, fmt.Errorf("usageplans: stack %s: found %d stacks", stack, len(out.Stacks))
	}
	outputs := map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	ids := IDs{}
	for _, p := range patio.Plans {
		v := outputs[OutputKey(p)]
		if v == "" {
			return nil, fmt.Errorf("usageplans: stack %s has no output %s", stack, OutputKey(p))
		}
		ids[p] = v
	}
	return ids, nil
}

// Gateway manages teams' API Gateway keys and their usage plan membership.
type Gateway struct {
	api     *apigateway.Client
	metrics *cloudwatch.Client
	plans   IDs
}

// KeyCountMetric is the CloudWatch metric PublishKeyCount publishes (no dimension), which the
// template's ApiKeyCountAlarm watches.
const KeyCountMetric = "ApiKeys"

// New returns a Gateway on the usage plans ids, which must name one usage plan per plan. The
// client reaches API Gateway as cfg says (AWS_ENDPOINT_URL_API_GATEWAY points it at moto in tests).
func New(cfg aws.Config, ids IDs) (*Gateway, error) {
	for _, p := range patio.Plans {
		if ids[p] == "" {
			return nil, fmt.Errorf("usageplans: no usage plan id for plan %s", p)
		}
	}
	return &Gateway{api: apigateway.NewFromConfig(cfg), metrics: cloudwatch.NewFromConfig(cfg), plans: ids}, nil
}

// Create creates an enabled API Gateway key with a random value for the team and attaches it to the
// usage plan of the team's plan. It returns the key's id and value. When attaching fails the key is
// deleted again, so a failed Create leaves nothing behind (unless that deletion fails too, which the
// error then says).
func (g *Gateway) Create(ctx context.Context, team patio.Team) (id, value string, err error) {
	plan, ok := g.plans[team.Plan]
	if !ok {
		return "", "", fmt.Errorf("usageplans: no usage plan for plan %q", team.Plan)
	}
	// 256 random bits; API Gateway accepts 20 to 128 characters.
	value = rand.Text() + rand.Text()
	out, err := g.api.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{
		Name:        aws.String("patio-team-" + team.ID),
		Description: aws.String("Patio team " + team.ID + " (usage-plan key; clients never see it)"),
		Enabled:     true,
		Value:       aws.String(value),
		Tags:        map[string]string{"patio:team_id": team.ID},
	})
	if err != nil {
		return "", "", fmt.Errorf("usageplans: create key for team %s: %w", team.ID, err)
	}
	id = aws.ToString(out.Id)
	if err := g.attach(ctx, plan, id); err != nil {
		if derr := g.Delete(context.WithoutCancel(ctx), id); derr != nil {
			err = errors.Join(err, derr)
		}
		return "", "", err
	}
	return id, value, nil
}

// Move puts the key in the usage plan of plan and takes it out of the other plans' usage plans
// (those GetUsagePlanKey finds it in). It is idempotent, so rerunning it after a partial failure
// completes the move. API Gateway allows a key in only one usage plan per API stage, so the key
// leaves the old plan before it joins the new one; requests in between are refused by API Gateway
// (INVALID_API_KEY) for a moment.
func (g *Gateway) Move(ctx context.Context, keyID string, plan patio.Plan) error {
	target, ok := g.plans[plan]
	if !ok {
		return fmt.Errorf("usageplans: no usage plan for plan %q", plan)
	}
	in, err := g.Plans(ctx, keyID)
	if err != nil {
		return err
	}
	for _, p := range in {
		if g.plans[p] == target {
			continue
		}
		_, err := g.api.DeleteUsagePlanKey(ctx, &apigateway.DeleteUsagePlanKeyInput{
			UsagePlanId: aws.String(g.plans[p]), KeyId: aws.String(keyID)})
		var nf *types.NotFoundException
		if err != nil && !errors.As(err, &nf) {
			return fmt.Errorf("usageplans: detach key %s from the %s usage plan %s: %w", keyID, p, g.plans[p], err)
		}
	}
	return g.attach(ctx, target, keyID)
}

// Delete deletes the key; a key that does not exist is not an error.
func (g *Gateway) Delete(ctx context.Context, keyID string) error {
	_, err := g.api.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: aws.String(keyID)})
	var nf *types.NotFoundException
	if err != nil && !errors.As(err, &nf) {
		return fmt.Errorf("usageplans: delete key %s: %w", keyID, err)
	}
	return nil
}

// Plans returns the plans whose usage plan holds the key (one, after Create or Move), for checks
// and operators.
func (g *Gateway) Plans(ctx context.Context, keyID string) ([]patio.Plan, error) {
	var in []patio.Plan
	for _, p := range patio.Plans {
		_, err := g.api.GetUsagePlanKey(ctx, &apigateway.GetUsagePlanKeyInput{
			UsagePlanId: aws.String(g.plans[p]), KeyId: aws.String(keyID)})
		var nf *types.NotFoundException
		switch {
		case err == nil:
			in = append(in, p)
		case !errors.As(err, &nf):
			return nil, fmt.Errorf("usageplans: key %s in the %s usage plan: %w", keyID, p, err)
		}
	}
	return in, nil
}

// attach adds the key to a usage plan; a key already there is not an error.
func (g *Gateway) attach(ctx context.Context, usagePlan, keyID string) error {
	_, err := g.api.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{
		UsagePlanId: aws.String(usagePlan), KeyId: aws.String(keyID), KeyType: aws.String("API_KEY")})
	var conflict *types.ConflictException
	if err != nil && !errors.As(err, &conflict) {
		return fmt.Errorf("usageplans: attach key %s to usage plan %s: %w", keyID, usagePlan, err)
	}
	return nil
}

// PublishKeyCount counts the API Gateway keys of the account and region (every stack's: the
// 10,000-key limit is the account's, docs/edge.md) and publishes the count as KeyCountMetric in
// namespace, which AWS itself does not publish. It returns the count.
func (g *Gateway) PublishKeyCount(ctx context.Context, namespace string) (int, error) {
	n := 0
	pages := apigateway.NewGetApiKeysPaginator(g.api, &apigateway.GetApiKeysInput{Limit: aws.Int32(500)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("usageplans: count API keys: %w", err)
		}
		n += len(page.Items)
	}
	_, err := g.metrics.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
		Namespace: aws.String(namespace),
		MetricData: []cwtypes.MetricDatum{{
			MetricName: aws.String(KeyCountMetric), Value: aws.Float64(float64(n)),
			Unit: cwtypes.StandardUnitCount, Timestamp: aws.Time(time.Now()),
		}},
	})
	if err != nil {
		return n, fmt.Errorf("usageplans: publish the API key count (%d) to %s: %w", n, namespace, err)
	}
	return n, nil
}
