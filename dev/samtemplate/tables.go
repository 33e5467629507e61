package samtemplate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table is one AWS::DynamoDB::Table resource of the template.
type Table struct {
	// LogicalID is the resource's name in the template, e.g. "VehiclesTable".
	LogicalID string
	// TTLAttribute is the attribute of TimeToLiveSpecification when TTL is enabled, else "".
	TTLAttribute string

	props map[string]any
}

// ignoredTableProps lists the table properties the local stack ignores: they only matter on AWS
// (the engine has no backups, encryption or tags) or are replaced by a local name. Any property
// not handled and not listed here makes Load fail, so a new one gets a conscious decision.
var ignoredTableProps = map[string]bool{
	"TableName":                        true,
	"DeletionProtectionEnabled":        true,
	"PointInTimeRecoverySpecification": true,
	"SSESpecification":                 true,
	"Tags":                             true,
	"ContributorInsightsSpecification": true,
	"TableClass":                       true,
	"KinesisStreamSpecification":       true,
	"OnDemandThroughput":               true,
	"WarmThroughput":                   true,
	"ResourcePolicy":                   true,
}

var handledTableProps = map[string]bool{
	"AttributeDefinitions":    true,
	"KeySchema":               true,
	"LocalSecondaryIndexes":   true,
	"GlobalSecondaryIndexes":  true,
	"BillingMode":             true,
	"ProvisionedThroughput":   true,
	"StreamSpecification":     true,
	"TimeToLiveSpecification": true,
}

// Tables returns the template's tables in logical-id order.
func (t *Template) Tables() []Table {
	return append([]Table(nil), t.tables...)
}

// Table returns the table with the given logical id; ok is false when there is none.
func (t *Template) Table(logicalID string) (tb Table, ok bool) {
	for _, tb := range t.tables {
		if tb.LogicalID == logicalID {
			return tb, true
		}
	}
	return Table{}, false
}

func parseTable(id string, props map[string]any) (Table, error) {
	path := "Resources." + id + ".Properties"
	for k := range props {
		if !handledTableProps[k] && !ignoredTableProps[k] {
			return Table{}, fmt.Errorf("%s.%s: table property not supported by the local stack", path, k)
		}
	}
	tb := Table{LogicalID: id, props: props}
	if _, err := tb.build("validate"); err != nil {
		return Table{}, err
	}
	ttl, err := optMapping(props["TimeToLiveSpecification"], path+".TimeToLiveSpecification")
	if err != nil {
		return Table{}, err
	}
	if ttl != nil {
		enabled, err := boolean(ttl["Enabled"], path+".TimeToLiveSpecification.Enabled")
		if err != nil {
			return Table{}, err
		}
		if enabled {
			if tb.TTLAttribute, err = scalar(ttl["AttributeName"], path+".TimeToLiveSpecification.AttributeName"); err != nil {
				return Table{}, err
			}
		}
	}
	return tb, nil
}

// CreateTableInput returns the CreateTable request for this table under the given name: key schema,
// attribute definitions, local and global secondary indexes, billing mode and stream. Each call
// returns a fresh value the caller may modify. Deletion protection and point-in-time recovery are
// left out: they protect production data, and would stop tests from deleting their tables.
func (tb Table) CreateTableInput(name string) *dynamodb.CreateTableInput {
	in, err := tb.build(name)
	if err != nil {
		// Parse built the same properties successfully; they are immutable since.
		panic("samtemplate: " + err.Error())
	}
	return in
}

func (tb Table) build(name string) (*dynamodb.CreateTableInput, error) {
	p := tb.props
	path := "Resources." + tb.LogicalID + ".Properties"
	in := &dynamodb.CreateTableInput{TableName: aws.String(name)}
	var err error

	attrs, err := list(p["AttributeDefinitions"], path+".AttributeDefinitions")
	if err != nil {
		return nil, err
	}
	for i, a := range attrs {
		ap := fmt.Sprintf("%s.AttributeDefinitions[%d]", path, i)
		am, err := mapping(a, ap)
		if err != nil {
			return nil, err
		}
		n, err := scalar(am["AttributeName"], ap+".AttributeName")
		if err != nil {
			return nil, err
		}
		typ, err := scalar(am["AttributeType"], ap+".AttributeType")
		if err != nil {
			return nil, err
		}
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(n), AttributeType: types.ScalarAttributeType(typ),
		})
	}
	if in.KeySchema, err = keySchema(p["KeySchema"], path+".KeySchema"); err != nil {
		return nil, err
	}

	if mode, ok := p["BillingMode"]; ok {
		s, err := scalar(mode, path+".BillingMode")
		if err != nil {
			return nil, err
		}
		in.BillingMode = types.BillingMode(s)
	} else {
		in.BillingMode = types.BillingModeProvisioned
	}
	if in.ProvisionedThroughput, err = throughput(p["ProvisionedThroughput"], path+".ProvisionedThroughput"); err != nil {
		return nil, err
	}

	lsis, err := optList(p["LocalSecondaryIndexes"], path+".LocalSecondaryIndexes")
	if err != nil {
		return nil, err
	}
	for i, x := range lsis {
		name, keys, proj, _, err := index(x, fmt.Sprintf("%s.LocalSecondaryIndexes[%d]", path, i))
		if err != nil {
			return nil, err
		}
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName: aws.String(name), KeySchema: keys, Projection: proj,
		})
	}
	gsis, err := optList(p["GlobalSecondaryIndexes"], path+".GlobalSecondaryIndexes")
	if err != nil {
		return nil, err
	}
	for i, x := range gsis {
		name, keys, proj, tp, err := index(x, fmt.Sprintf("%s.GlobalSecondaryIndexes[%d]", path, i))
		if err != nil {
			return nil, err
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(name), KeySchema: keys, Projection: proj, ProvisionedThroughput: tp,
		})
	}

	stream, err := optMapping(p["StreamSpecification"], path+".StreamSpecification")
	if err != nil {
		return nil, err
	}
	if stream != nil {
		view, err := scalar(stream["StreamViewType"], path+".StreamSpecification.StreamViewType")
		if err != nil {
			return nil, err
		}
		in.StreamSpecification = &types.StreamSpecification{
			StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(view),
		}
	}
	return in, nil
}

func keySchema(v any, path string) ([]types.KeySchemaElement, error) {
	keys, err := list(v, path)
	if err != nil {
		return nil, err
	}
	out := make([]types.KeySchemaElement, 0, len(keys))
	for i, k := range keys {
		kp := fmt.Sprintf("%s[%d]", path, i)
		km, err := mapping(k, kp)
		if err != nil {
			return nil, err
		}
		n, err := scalar(km["AttributeName"], kp+".AttributeName")
		if err != nil {
			return nil, err
		}
		typ, err := scalar(km["KeyType"], kp+".KeyType")
		if err != nil {
			return nil, err
		}
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(n), KeyType: types.KeyType(typ)})
	}
	return out, nil
}

func index(v any, path string) (string, []types.KeySchemaElement, *types.Projection, *types.ProvisionedThroughput, error) {
	m, err := mapping(v, path)
	if err != nil {
		return "", nil, nil, nil, err
	}
	name, err := scalar(m["IndexName"], path+".IndexName")
	if err != nil {
		return "", nil, nil, nil, err
	}
	keys, err := keySchema(m["KeySchema"], path+".KeySchema")
	if err != nil {
		return "", nil, nil, nil, err
	}
	pm, err := mapping(m["Projection"], path+".Projection")
	if err != nil {
		return "", nil, nil, nil, err
	}
	proj := &types.Projection{}
	if pt, ok := pm["ProjectionType"]; ok {
		s, err := scalar(pt, path+".Projection.ProjectionType")
		if err != nil {
			return "", nil, nil, nil, err
		}
		proj.ProjectionType = types.ProjectionType(s)
	}
	nka, err := optList(pm["NonKeyAttributes"], path+".Projection.NonKeyAttributes")
	if err != nil {
		return "", nil, nil, nil, err
	}
	for i, a := range nka {
		s, err := scalar(a, fmt.Sprintf("%s.Projection.NonKeyAttributes[%d]", path, i))
		if err != nil {
			return "", nil, nil, nil, err
		}
		proj.NonKeyAttributes = append(proj.NonKeyAttributes, s)
	}
	tp, err := throughput(m["ProvisionedThroughput"], path+".ProvisionedThroughput")
	if err != nil {
		return "", nil, nil, nil, err
	}
	return name, keys, proj, tp, nil
}

func throughput(v any, path string) (*types.ProvisionedThroughput, error) {
	m, err := optMapping(v, path)
	if err != nil || m == nil {
		return nil, err
	}
	r, err := integer(m["ReadCapacityUnits"], path+".ReadCapacityUnits")
	if err != nil {
		return nil, err
	}
	w, err := integer(m["WriteCapacityUnits"], path+".WriteCapacityUnits")
	if err != nil {
		return nil, err
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}, nil
}

func integer(v any, path string) (int64, error) {
	s, err := scalar(v, path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: want an integer, got %q", path, s)
	}
	return n, nil
}

func boolean(v any, path string) (bool, error) {
	s, err := scalar(v, path)
	if err != nil {
		return false, err
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("%s: want true or false, got %q", path, s)
	}
	return b, nil
}

// createTables creates every table of tpl on the DynamoDB endpoint of client, named prefix plus the
// logical id, waits until each is ACTIVE and enables TTL where the template does. A table that
// already exists is kept as it is when its schema matches the template (see Provision). It returns
// logical id → table name.
func createTables(ctx context.Context, client *dynamodb.Client, tpl *Template, prefix string) (map[string]string, error) {
	names := make(map[string]string, len(tpl.tables))
	for _, tb := range tpl.tables {
		name := prefix + tb.LogicalID
		if err := createTable(ctx, client, tb, name); err != nil {
			return nil, err
		}
		names[tb.LogicalID] = name
	}
	return names, nil
}

// dynamoDBLocal adapts each request to DynamoDB Local, which sends no X-Amz-Crc32 on error
// responses (DescribeTable of a missing table): validating would only log spurious warnings
// (aws/aws-sdk-go-v2#3545). Tables are only ever created on DynamoDB Local, so callers of Provision
// pass plain clients.
func dynamoDBLocal(o *dynamodb.Options) {
	o.DisableValidateResponseChecksum = true
}

func createTable(ctx context.Context, client *dynamodb.Client, tb Table, name string) error {
	want := tb.CreateTableInput(name)
	if err := resumeRebuild(ctx, client, name, want); err != nil {
		return err
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, dynamoDBLocal)
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		_, err = client.CreateTable(ctx, want, dynamoDBLocal)
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("samtemplate: create table %s: %w", name, err)
		}
	case err != nil:
		return fmt.Errorf("samtemplate: describe table %s: %w", name, err)
	default:
		got, exp := describedSchema(desc.Table), wantedSchema(want)
		switch {
		case got == exp:
		case sameKeys(desc.Table, want):
			if err := rebuildTable(ctx, client, name, want); err != nil {
				return err
			}
		default:
			return fmt.Errorf("samtemplate: table %s exists with another primary key than template.yaml's %s:\n have %s\n want %s\n(local data predates a template change that cannot keep its items: start afresh)",
				name, tb.LogicalID, got, exp)
		}
	}

	if err := waitTable(ctx, client, name, true); err != nil {
		return err
	}

	if tb.TTLAttribute == "" {
		return nil
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)}, dynamoDBLocal)
	if err != nil {
		return fmt.Errorf("samtemplate: describe TTL of %s: %w", name, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		if aws.ToString(d.AttributeName) == tb.TTLAttribute {
			return nil
		}
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(tb.TTLAttribute), Enabled: aws.Bool(true),
		},
	}, dynamoDBLocal)
	if err != nil {
		return fmt.Errorf("samtemplate: enable TTL on %s: %w", name, err)
	}
	return nil
}

// waitTable waits, up to 2 minutes, until table name is ACTIVE (exists) or gone (!exists).
func waitTable(ctx context.Context, client *dynamodb.Client, name string, exists bool) error {
	in := &dynamodb.DescribeTableInput{TableName: aws.String(name)}
	var err error
	if exists {
		err = dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
			o.ClientOptions = append(o.ClientOptions, dynamoDBLocal)
		}).Wait(ctx, in, 2*time.Minute)
	} else {
		err = dynamodb.NewTableNotExistsWaiter(client, func(o *dynamodb.TableNotExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
			o.ClientOptions = append(o.ClientOptions, dynamoDBLocal)
		}).Wait(ctx, in, 2*time.Minute)
	}
	if err != nil {
		return fmt.Errorf("samtemplate: wait for table %s: %w", name, err)
	}
	return nil
}

// wantedSchema and describedSchema render the parts of a table that cannot change in place
// (keys, indexes, stream view) as comparable strings.
func wantedSchema(in *dynamodb.CreateTableInput) string {
	parts := []string{"keys " + keysString(in.KeySchema)}
	for _, x := range in.LocalSecondaryIndexes {
		parts = append(parts, "lsi "+aws.ToString(x.IndexName)+" "+keysString(x.KeySchema)+" "+projType(x.Projection))
	}
	for _, x := range in.GlobalSecondaryIndexes {
		parts = append(parts, "gsi "+aws.ToString(x.IndexName)+" "+keysString(x.KeySchema)+" "+projType(x.Projection))
	}
	if s := in.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		parts = append(parts, "stream "+string(s.StreamViewType))
	}
	return schemaString(parts)
}

func describedSchema(d *types.TableDescription) string {
	parts := []string{"keys " + keysString(d.KeySchema)}
	for _, x := range d.LocalSecondaryIndexes {
		parts = append(parts, "lsi "+aws.ToString(x.IndexName)+" "+keysString(x.KeySchema)+" "+projType(x.Projection))
	}
	for _, x := range d.GlobalSecondaryIndexes {
		parts = append(parts, "gsi "+aws.ToString(x.IndexName)+" "+keysString(x.KeySchema)+" "+projType(x.Projection))
	}
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		parts = append(parts, "stream "+string(s.StreamViewType))
	}
	return schemaString(parts)
}

// schemaString joins the parts with the indexes sorted, since DescribeTable need not list them in
// the template's order.
func schemaString(parts []string) string {
	sort.Strings(parts[1:])
	return strings.Join(parts, "; ")
}

func keysString(keys []types.KeySchemaElement) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = aws.ToString(k.AttributeName) + ":" + string(k.KeyType)
	}
	return strings.Join(parts, ",")
}

// projType renders a projection: its type, and the attributes it includes, sorted.
func projType(p *types.Projection) string {
	if p == nil {
		return ""
	}
	attrs := slices.Sorted(slices.Values(p.NonKeyAttributes))
	if len(attrs) == 0 {
		return string(p.ProjectionType)
	}
	return string(p.ProjectionType) + "(" + strings.Join(attrs, ",") + ")"
}
