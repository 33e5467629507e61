package main

import (
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// rawClient issues, with the bare AWS SDK, the DynamoDB calls each measured request makes: the same
// operations in the same order, with the same keys, key conditions (the legacy KeyConditions that
// guregu/dynamo sends), consistency, index, order, filter, limits, projection (none: whole items)
// and conditions, on items of the same shape and size. The shapes mirror shared/dynamostore; the
// sample section of the report compares both sides call by call, so a drift shows.
//
// Nothing is decoded beyond what the next call needs: the raw side is the database's own cost.
type rawClient struct {
	db     *dynamodb.Client
	tables dynamostore.Tables

	// vehicle is a seeded vehicle's stored item, copied (with id and plate replaced) by every raw
	// create, so raw items are the API's items byte for byte but for those values.
	vehicle                    map[string]types.AttributeValue
	vehicleID, plate, plateKey string
	vehicleTeam                string
}

// newRawClient returns a client configured as the store's (shared/dynamostore.New): same AWS
// configuration and HTTP client, same retryer.
func newRawClient(cfg aws.Config, tables dynamostore.Tables) *rawClient {
	db := dynamodb.NewFromConfig(cfg, dynamostore.ClientOptions)
	return &rawClient{db: db, tables: tables}
}

// placeholder returns the expression attribute name guregu/dynamo substitutes for an attribute
// name, so that raw requests are the store's byte for byte.
func placeholder(name string) string {
	return "#s" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(name))
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func n(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }

func strAttr(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func numAttr(item map[string]types.AttributeValue, name string) (int, error) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("raw: item has no number %s", name)
	}
	return strconv.Atoi(v.Value)
}

// getItem is a strongly consistent GetItem of a whole item, as guregu/dynamo's Get(...).One sends
// it. A missing item is an error.
func (r *rawClient) getItem(ctx context.Context, table, pk, sk string) (map[string]types.AttributeValue, error) {
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, fmt.Errorf("raw: no item %s/%s in %s", pk, sk, table)
	}
	return out.Item, nil
}

// auth is what every request does before its operation: patio.Authenticate's reads (dynamostore
// KeyByHash, then Team: the key item by hash, then the team it names) and patio.Throttle's counting
// (dynamostore.Count: the conditional increment of the team's minute counter, then the increment of
// its day counter, conditioned only when the plan has a day limit). It returns the team id read
// from the key.
func (r *rawClient) auth(ctx context.Context, p principal) (string, error) {
	key, err := r.getItem(ctx, r.tables.Accounts, "key#"+p.keyHash, "key")
	if err != nil {
		return "", err
	}
	teamID := strAttr(key, "team_id")
	team, err := r.getItem(ctx, r.tables.Accounts, "team#"+teamID, "team")
	if err != nil {
		return "", err
	}
	limits := patio.Plan(strAttr(team, "plan")).Limits()
	now := time.Now().UTC()
	minute, day := rateKeys(teamID, now)
	if err := r.increment(ctx, minute, 1, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour).Unix()); err != nil {
		return "", err
	}
	if err := r.increment(ctx, day, 1, limits.PerDay, now.Truncate(24*time.Hour).Add(48*time.Hour).Unix()); err != nil {
		return "", err
	}
	return teamID, nil
}

// rateKeys returns the partition keys of a team's request counters for the UTC minute and day of
// now (dynamostore.Count).
func rateKeys(teamID string, now time.Time) (minute, day string) {
	now = now.UTC()
	return "rate#" + teamID + "#m#" + now.Format("200601021504"), "rate#" + teamID + "#d#" + now.Format("20060102")
}

// increment is dynamostore's counter update: ADD delta to count, SET expires_at, returning the new
// item; with limit > 0, only while count is below limit.
func (r *rawClient) increment(ctx context.Context, pk string, delta, limit int, expiresAt int64) error {
	count := placeholder("count") // "count" is a reserved word
	in := &dynamodb.UpdateItemInput{
		TableName:                aws.String(r.tables.Accounts),
		Key:                      map[string]types.AttributeValue{"pk": s(pk), "sk": s("rate")},
		UpdateExpression:         aws.String("SET expires_at = :v1 ADD " + count + " :v0"),
		ExpressionAttributeNames: map[string]string{count: "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(delta),
			":v1": &types.AttributeValueMemberN{Value: strconv.FormatInt(expiresAt, 10)}},
		ReturnValues: types.ReturnValueAllNew,
	}
	if limit > 0 {
		in.ConditionExpression = aws.String("(attribute_not_exists(" + count + ") OR " + count + " < :v2)")
		in.ExpressionAttributeValues[":v2"] = n(limit)
	}
	_, err := r.db.UpdateItem(ctx, in)
	return err
}

// rateCredit is what liftRateLimits takes off a minute's count: far more requests than a bench run
// makes in a minute.
const rateCredit = 1_000_000_000

// liftRateLimits lets the team's requests through its plan's per-minute limit for the next minutes,
// by starting each minute's counter at -rateCredit: every request still runs the limiter's
// conditional increments exactly as in production, they just never reach the limit.
func (r *rawClient) liftRateLimits(ctx context.Context, teamID string, minutes int) error {
	now := time.Now().UTC()
	for m := range minutes {
		at := now.Add(time.Duration(m) * time.Minute)
		minute, _ := rateKeys(teamID, at)
		if err := r.increment(ctx, minute, -rateCredit, 0, at.Truncate(time.Minute).Add(time.Hour).Unix()); err != nil {
			return err
		}
	}
	return nil
}

// getVehicle is GET /vehicles/{id}: auth, then the vehicle.
func (r *rawClient) getVehicle(ctx context.Context, p principal, id string) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	_, err = r.getItem(ctx, r.tables.Vehicles, teamID, recordKey(patio.ResourceVehicle, id))
	return err
}

// useVehicleTemplate keeps a seeded vehicle's item as the model of raw creates.
func (r *rawClient) useVehicleTemplate(ctx context.Context, teamID, id string) error {
	item, err := r.getItem(ctx, r.tables.Vehicles, teamID, recordKey(patio.ResourceVehicle, id))
	if err != nil {
		return err
	}
	r.vehicle, r.vehicleID, r.vehicleTeam = item, id, teamID
	r.plate = strAttr(item, "plate")
	r.plateKey = strAttr(item, "plate_key")
	if r.plate == "" || r.plateKey == "" {
		return errors.New("raw: the template vehicle has no plate")
	}
	return nil
}

// replaceInStrings returns a copy of item in which every string attribute has each old value of
// pairs (old, new, old, new, …) replaced.
func replaceInStrings(item map[string]types.AttributeValue, pairs ...string) map[string]types.AttributeValue {
	rep := strings.NewReplacer(pairs...)
	out := maps.Clone(item)
	for k, v := range out {
		if sv, ok := v.(*types.AttributeValueMemberS); ok {
			out[k] = s(rep.Replace(sv.Value))
		}
	}
	return out
}

// createVehicle is POST /vehicles: auth, then one transaction putting the vehicle (new) and its
// plate guard (free), as dynamostore.CreateVehicle does.
func (r *rawClient) createVehicle(ctx context.Context, p principal, plateIndex int) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	if teamID != r.vehicleTeam {
		return errors.New("raw: create in a team other than the template's")
	}
	id := uuid.Must(uuid.NewV7()).String()
	plate := oldPlate(plateIndex)
	key := br.PlateKey(plate)
	item := replaceInStrings(r.vehicle, r.vehicleID, id, r.plate, plate, r.plateKey, key,
		strings.ToLower(r.plate), strings.ToLower(plate), strings.ToLower(r.plateKey), strings.ToLower(key))
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{
				TableName:           aws.String(r.tables.Vehicles),
				Item:                item,
				ConditionExpression: aws.String("(attribute_not_exists(pk))"),
			}},
			{Put: &types.Put{
				TableName:           aws.String(r.tables.Vehicles),
				Item:                map[string]types.AttributeValue{"pk": s(teamID), "sk": s(dynamostore.PlateGuardKey(key)), "owner": s(id)},
				ConditionExpression: aws.String("(attribute_not_exists(pk))"),
			}},
		},
	})
	return err
}

// listQuery is one read of dynamostore's listPage: a Query of a team's partition (on an index or
// the table), strongly consistent, in order, filtered by status.
type listQuery struct {
	table, index, rangeAttr, rangePrefix string
	desc                                 bool
	statuses                             []string
}

func (q listQuery) input(teamID string) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName: aws.String(q.table),
		KeyConditions: map[string]types.Condition{
			"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s(teamID)}},
			q.rangeAttr: {ComparisonOperator: types.ComparisonOperatorBeginsWith,
				AttributeValueList: []types.AttributeValue{s(q.rangePrefix)}},
		},
		ConsistentRead:           aws.Bool(true),
		ScanIndexForward:         aws.Bool(!q.desc),
		ExpressionAttributeNames: map[string]string{placeholder("status"): "status"},
	}
	if q.index != "" {
		in.IndexName = aws.String(q.index)
	}
	marks := make([]string, len(q.statuses))
	in.ExpressionAttributeValues = make(map[string]types.AttributeValue, len(q.statuses))
	for i, st := range q.statuses {
		marks[i] = ":v" + strconv.Itoa(i)
		in.ExpressionAttributeValues[marks[i]] = s(st)
	}
	in.FilterExpression = aws.String("(" + placeholder("status") + " IN (" + strings.Join(marks, ", ") + "))")
	return in
}

// list is GET /<resource>?limit=…: auth, the COUNT query paged to its end, then the page query. The
// page query carries no Limit, since guregu/dynamo drops Limit from a filtered query (a DynamoDB
// Limit caps the items examined, not the items matched); it is repeated from the last key until it
// has offset+limit items or reaches the end.
func (r *rawClient) list(ctx context.Context, p principal, q listQuery, want int) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	count := q.input(teamID)
	count.Select = types.SelectCount
	for {
		out, err := r.db.Query(ctx, count)
		if err != nil {
			return err
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		count.ExclusiveStartKey = out.LastEvaluatedKey
	}
	page := q.input(teamID)
	for got := 0; ; {
		out, err := r.db.Query(ctx, page)
		if err != nil {
			return err
		}
		got += len(out.Items)
		if got >= want || out.LastEvaluatedKey == nil {
			return nil
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// winDeal is PUT /deals/{id} {"status":"ganho"}: auth, the deal, the vehicle it names, then one
// transaction writing both, each conditioned on the revision read (dynamostore.UpdateDeal and
// writeDeal with a Sell).
func (r *rawClient) winDeal(ctx context.Context, p principal, dealID string) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	deal, err := r.getItem(ctx, r.tables.Deals, teamID, recordKey(patio.ResourceDeal, dealID))
	if err != nil {
		return err
	}
	vehicleID := strAttr(deal, "vehicle_id")
	vehicle, err := r.getItem(ctx, r.tables.Vehicles, teamID, recordKey(patio.ResourceVehicle, vehicleID))
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05Z")
	dealRev, err := numAttr(deal, "rev")
	if err != nil {
		return err
	}
	vehicleRev, err := numAttr(vehicle, "rev")
	if err != nil {
		return err
	}
	deal = replaceInStrings(deal, strAttr(deal, "updated_at"), now) // updated_at and lsi_updated
	deal["status"], deal["closed_at"], deal["rev"] = s("ganho"), s(now), n(dealRev+1)
	vehicle = replaceInStrings(vehicle, strAttr(vehicle, "updated_at"), now)
	vehicle["status"], vehicle["sold_at"], vehicle["sold_deal_id"] = s("vendido"), s(now), s(dealID)
	vehicle["rev"] = n(vehicleRev + 1)
	revIs := func(rev int) (*string, map[string]string, map[string]types.AttributeValue) {
		return aws.String("(" + placeholder("rev") + " = :v0)"), map[string]string{placeholder("rev"): "rev"},
			map[string]types.AttributeValue{":v0": n(rev)}
	}
	dc, dn, dv := revIs(dealRev)
	vc, vn, vv := revIs(vehicleRev)
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(r.tables.Deals), Item: deal,
				ConditionExpression: dc, ExpressionAttributeNames: dn, ExpressionAttributeValues: dv}},
			{Put: &types.Put{TableName: aws.String(r.tables.Vehicles), Item: vehicle,
				ConditionExpression: vc, ExpressionAttributeNames: vn, ExpressionAttributeValues: vv}},
		},
	})
	return err
}

// recordKey is the store's sort key of a record (dynamostore.RecordKey); the resources named here
// always have one.
func recordKey(resource, id string) string {
	sk, err := dynamostore.RecordKey(resource, id)
	if err != nil {
		panic(err)
	}
	return sk
}
