package samtemplate

import (
	"context"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	cip "github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	ciptypes "github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Resource types of Amazon Cognito the local stack creates in moto.
const (
	typeUserPool       = "AWS::Cognito::UserPool"
	typeUserPoolClient = "AWS::Cognito::UserPoolClient"
)

// UserPools returns the logical ids of the template's user pools, sorted.
func (t *Template) UserPools() []string { return t.ofType(typeUserPool) }

func (t *Template) ofType(typ string) []string {
	var ids []string
	for _, id := range sortedKeys(t.resources) {
		if t.resources[id].typ == typ {
			ids = append(ids, id)
		}
	}
	return ids
}

// cognitoOn returns a Cognito client on the endpoint, region and credentials of an SQS client:
// the local stack's moto serves both on one endpoint.
func cognitoOn(queues *sqs.Client) *cip.Client {
	o := queues.Options()
	return cip.New(cip.Options{Region: o.Region, BaseEndpoint: o.BaseEndpoint, Credentials: o.Credentials,
		HTTPClient: o.HTTPClient})
}

// createUserPools creates every user pool of tpl and its clients, each pool named prefix plus its
// logical id, with the template's password policy and the clients' explicit auth flows (what moto
// checks). An existing pool of that name is kept, with its clients (moto forgets everything when it
// stops, so this happens only within one run). It returns what !Ref gives on AWS: the pool's id for
// a pool, the client's id for a client.
func createUserPools(ctx context.Context, client *cip.Client, tpl *Template, prefix string) (map[string]string, error) {
	refs := map[string]string{}
	pools := tpl.UserPools()
	if len(pools) == 0 {
		return refs, nil
	}
	existing := map[string]string{}
	p := cip.NewListUserPoolsPaginator(client, &cip.ListUserPoolsInput{MaxResults: aws.Int32(60)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("samtemplate: list user pools: %w", err)
		}
		for _, up := range page.UserPools {
			existing[aws.ToString(up.Name)] = aws.ToString(up.Id)
		}
	}
	for _, id := range pools {
		name := prefix + id
		if poolID, ok := existing[name]; ok {
			refs[id] = poolID
			continue
		}
		in, err := userPoolInput(name, tpl.resources[id].props, "Resources."+id+".Properties")
		if err != nil {
			return nil, err
		}
		out, err := client.CreateUserPool(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("samtemplate: create user pool %s: %w", name, err)
		}
		refs[id] = aws.ToString(out.UserPool.Id)
	}
	for _, id := range tpl.ofType(typeUserPoolClient) {
		props := tpl.resources[id].props
		path := "Resources." + id + ".Properties"
		poolRef, ok := props["UserPoolId"].(intrinsic)
		poolName, _ := poolRef.arg.(string)
		if !ok || poolRef.name != "Ref" || refs[poolName] == "" {
			return nil, fmt.Errorf("samtemplate: %s.UserPoolId must be !Ref of a user pool of the template", path)
		}
		name := prefix + id
		clients, err := client.ListUserPoolClients(ctx, &cip.ListUserPoolClientsInput{UserPoolId: aws.String(refs[poolName]),
			MaxResults: aws.Int32(60)})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: list clients of %s: %w", poolName, err)
		}
		for _, c := range clients.UserPoolClients {
			if aws.ToString(c.ClientName) == name {
				refs[id] = aws.ToString(c.ClientId)
			}
		}
		if refs[id] != "" {
			continue
		}
		var flows []ciptypes.ExplicitAuthFlowsType
		if v, ok := props["ExplicitAuthFlows"]; ok {
			l, err := list(v, path+".ExplicitAuthFlows")
			if err != nil {
				return nil, err
			}
			for i, f := range l {
				s, err := scalar(f, fmt.Sprintf("%s.ExplicitAuthFlows[%d]", path, i))
				if err != nil {
					return nil, err
				}
				flows = append(flows, ciptypes.ExplicitAuthFlowsType(s))
			}
		}
		out, err := client.CreateUserPoolClient(ctx, &cip.CreateUserPoolClientInput{UserPoolId: aws.String(refs[poolName]),
			ClientName: aws.String(name), ExplicitAuthFlows: flows, GenerateSecret: false})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: create user pool client %s: %w", name, err)
		}
		refs[id] = aws.ToString(out.UserPoolClient.ClientId)
	}
	return maps.Clone(refs), nil
}

// userPoolInput turns a user pool's properties into what moto needs: its name and password policy.
func userPoolInput(name string, props map[string]any, path string) (*cip.CreateUserPoolInput, error) {
	in := &cip.CreateUserPoolInput{PoolName: aws.String(name),
		AdminCreateUserConfig: &ciptypes.AdminCreateUserConfigType{AllowAdminCreateUserOnly: true}}
	pol, err := optMapping(props["Policies"], path+".Policies")
	if err != nil {
		return nil, err
	}
	pw, err := optMapping(pol["PasswordPolicy"], path+".Policies.PasswordPolicy")
	if err != nil || len(pw) == 0 {
		return in, err
	}
	pp := &ciptypes.PasswordPolicyType{}
	if v, ok := pw["MinimumLength"]; ok {
		n, err := integer(v, path+".Policies.PasswordPolicy.MinimumLength")
		if err != nil {
			return nil, err
		}
		pp.MinimumLength = aws.Int32(int32(n))
	}
	for key, dst := range map[string]*bool{"RequireLowercase": &pp.RequireLowercase, "RequireUppercase": &pp.RequireUppercase,
		"RequireNumbers": &pp.RequireNumbers, "RequireSymbols": &pp.RequireSymbols} {
		if v, ok := pw[key]; ok {
			if *dst, err = boolean(v, path+".Policies.PasswordPolicy."+key); err != nil {
				return nil, err
			}
		}
	}
	in.Policies = &ciptypes.UserPoolPolicyType{PasswordPolicy: pp}
	return in, nil
}
