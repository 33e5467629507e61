package main

import (
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// rawClient issues, with the bare AWS SDK, the DynamoDB calls each measured request makes (lists
// aside, whose raw side is their floor: see listFloor): the same operations in the same order, with
// the same keys, key conditions (the legacy KeyConditions that guregu/dynamo sends), consistency,
// index, order, filter, limits, projection (none: whole items) and conditions, on items of the same
// shape and size. The shapes mirror shared/dynamostore; the sample section of the report compares
// both sides call by call, so a drift shows.
//
// Nothing is decoded beyond what the next call needs: the raw side is the database's own cost.
type rawClient struct {
	db     *dynamodb.Client
	tables dynamostore.Tables

	// vehicle is a seeded vehicle's stored item, copied (with id and plate replaced) by every raw
	// create, so raw items are the API's items byte for byte but for those values.
	vehicle     map[string]types.AttributeValue
	vehicleTeam string
}

// newRawClient returns a client configured as the store's (shared/dynamostore.New): same AWS
// configuration and HTTP client, same retryer.
func newRawClient(cfg aws.Config, tables dynamostore.Tables) *rawClient {
	db := dynamodb.NewFromConfig(cfg, storeClientOptions)
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

// auth is what every write does before its operation: authenticate, then count.
func (r *rawClient) auth(ctx context.Context, p principal) (string, error) {
	teamID, limits, err := r.authenticate(ctx, p)
	if err != nil {
		return "", err
	}
	return teamID, r.count(ctx, teamID, limits)
}

// read is what every read does: authenticate, then count while read runs (the API serves a GET
// while it is counted).
func (r *rawClient) read(ctx context.Context, p principal, read func(teamID string) error) error {
	teamID, limits, err := r.authenticate(ctx, p)
	if err != nil {
		return err
	}
	var readErr error
	var wg sync.WaitGroup
	wg.Go(func() { readErr = read(teamID) })
	countErr := r.count(ctx, teamID, limits)
	wg.Wait()
	return errors.Join(countErr, readErr)
}

// authenticate is patio.Authenticate's reads (dynamostore KeyByHash, then Team: the key item by
// hash, then the team it names; the local stack has no authorizer to name the team). It returns
// the team id read from the key and the team's plan limits.
func (r *rawClient) authenticate(ctx context.Context, p principal) (string, patio.Limits, error) {
	key, err := r.getItem(ctx, r.tables.Accounts, "key#"+p.keyHash, "key")
	if err != nil {
		return "", patio.Limits{}, err
	}
	teamID := strAttr(key, "team_id")
	team, err := r.getItem(ctx, r.tables.Accounts, "team#"+teamID, "team")
	if err != nil {
		return "", patio.Limits{}, err
	}
	return teamID, patio.Plan(strAttr(team, "plan")).Limits(), nil
}

// count is patio.Throttle's counting (dynamostore.Accounts.Count: the conditional increment of the team's
// minute counter and, at the same time, the increment of its day counter, conditioned only when
// the plan has a day limit).
func (r *rawClient) count(ctx context.Context, teamID string, limits patio.Limits) error {
	now := time.Now().UTC()
	minute, day := rateKeys(teamID, now)
	var minuteErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		minuteErr = r.increment(ctx, minute, 1, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour).Unix())
	})
	dayErr := r.increment(ctx, day, 1, limits.PerDay, now.Truncate(24*time.Hour).Add(48*time.Hour).Unix())
	wg.Wait()
	return errors.Join(minuteErr, dayErr)
}

// rateKeys returns the partition keys of a team's request counters for the UTC minute and day of
// now (dynamostore.Accounts.Count).
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

// getVehicle is GET /vehicles/{id}: a read of the vehicle.
func (r *rawClient) getVehicle(ctx context.Context, p principal, id string) error {
	return r.read(ctx, p, func(teamID string) error {
		_, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
		return err
	})
}

// useVehicleTemplate keeps a seeded vehicle's item as the model of raw creates.
func (r *rawClient) useVehicleTemplate(ctx context.Context, teamID, id string) error {
	item, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
	if err != nil {
		return err
	}
	if strAttr(item, "plate") == "" || strAttr(item, "plate_key") == "" {
		return errors.New("raw: the template vehicle has no plate")
	}
	r.vehicle, r.vehicleTeam = item, teamID
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

// A write's raw side is its floor: what any design must write, on items of the request's shape
// (the vehicle and the guard that keeps its plate unique; the deal and the vehicle it sells, each
// conditioned on the revision read, their index keys moving with updated_at alone). The store
// writes more in the same transaction: each record's order item and its status's count
// (docs/storage.md, "Lists at any size"); the floor does not, since a baseline is what any design
// must do, not a copy of ours.

// createVehicle is POST /vehicles at its floor: auth, then one transaction putting the vehicle
// (new) and its plate guard (free).
func (r *rawClient) createVehicle(ctx context.Context, p principal, plateIndex int) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	if teamID != r.vehicleTeam {
		return errors.New("raw: create in a team other than the template's")
	}
	item, id, plateKey := vehicleCopy(r.vehicle, plateIndex)
	return r.putWithGuard(ctx, teamID, item, id, plateKey)
}

// putWithGuard puts a new vehicle item and its plate guard in one transaction, each conditioned
// on being new.
func (r *rawClient) putWithGuard(ctx context.Context, teamID string, item map[string]types.AttributeValue, id, plateKey string) error {
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName:           aws.String(r.tables.Vehicles),
		Item:                item,
		ConditionExpression: aws.String("(attribute_not_exists(pk))"),
	}}}
	items = append(items, types.TransactWriteItem{Put: &types.Put{
		TableName:           aws.String(r.tables.Vehicles),
		Item:                map[string]types.AttributeValue{"pk": s(teamID), "sk": s(storeformat.PlateGuardKey(plateKey)), "owner": s(id)},
		ConditionExpression: aws.String("(attribute_not_exists(pk))"),
	}})
	_, err := r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// vehicleCopy returns a copy of a stored vehicle item with a new id and the plate of plateIndex,
// its id and its plate key.
func vehicleCopy(template map[string]types.AttributeValue, plateIndex int) (item map[string]types.AttributeValue, id, plateKey string) {
	id = uuid.Must(uuid.NewV7()).String()
	plate := oldPlate(plateIndex)
	plateKey = br.PlateKey(plate)
	was, wasKey := strAttr(template, "plate"), strAttr(template, "plate_key")
	item = replaceInStrings(template, strAttr(template, "id"), id, was, plate, wasKey, plateKey,
		strings.ToLower(was), strings.ToLower(plate), strings.ToLower(wasKey), strings.ToLower(plateKey))
	return item, id, plateKey
}

// listFloor is the raw baseline of a list page: its floor, not a copy of the store's design. It is
// one strongly consistent Query that reads limit items (Limit = limit, no filter) of the range the
// store reads first for the page: the first status the list shows, in the list's order, from the
// page's position for a page reached by cursor. A page of k merged statuses cannot read less.
type listFloor struct {
	table, index, attr string
	lo, hi             string // inclusive bounds of the sort key
	desc               bool
	limit              int
}

// newListFloor returns the floor of a page of resource's list sorted by field showing status
// first (listRange), of the rows or of a facet value's items ("<facet>=<value>", "" for none).
// listRange returns the range the store reads first for a page of a resource's list sorted by
// field showing status, the rows' or, with facet "<name>=<value>" (storeformat.FacetKey), that
// facet value's: the local index ("" for the base table), its sort key attribute, and the
// inclusive bounds of the records that have a value in field (storeformat.SortKey's "1#" range).
func listRange(resource, field, status, facet string) (index, attr, lo, hi string) {
	l := storeformat.Of(resource)
	ix, ok := l.Sorts[field]
	if !ok {
		panic(fmt.Sprintf("bench: %s has no sort %q", resource, field))
	}
	if ix.Index == "" {
		base := l.OrderPrefix(status)
		if facet != "" {
			base = l.FacetPrefix(facet, status)
		}
		return "", "sk", base, base + "\U0010FFFF"
	}
	base := status + "#1"
	if facet != "" {
		base = facet + "#" + base
	}
	return ix.Index, ix.Attr, base + "#", base + "$"
}

func newListFloor(table, resource, field string, desc bool, status, facet string, limit int) listFloor {
	index, attr, lo, hi := listRange(resource, field, status, facet)
	return listFloor{table: table, index: index, attr: attr, lo: lo, hi: hi, desc: desc, limit: limit}
}

func (f listFloor) input(teamID string) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(f.table),
		KeyConditionExpression:    aws.String("pk = :pk AND #k BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#k": f.attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(teamID), ":lo": s(f.lo), ":hi": s(f.hi)},
		ConsistentRead:            aws.Bool(true),
		ScanIndexForward:          aws.Bool(!f.desc),
		Limit:                     aws.Int32(int32(f.limit)),
	}
	if f.index != "" {
		in.IndexName = aws.String(f.index)
	}
	return in
}

// list is GET /<resource>?… at its floor: a read of the floor's one Query.
func (r *rawClient) list(ctx context.Context, p principal, f listFloor) error {
	return r.read(ctx, p, func(teamID string) error {
		_, err := r.db.Query(ctx, f.input(teamID))
		return err
	})
}

// winDeal is PUT /deals/{id} {"status":"ganho"} at its floor: auth, the deal, the vehicle it
// names, then one transaction writing both, each conditioned on the revision read.
func (r *rawClient) winDeal(ctx context.Context, p principal, dealID string) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	deal, err := r.getItem(ctx, r.tables.Deals, teamID, storeformat.Deals.RowKey(dealID))
	if err != nil {
		return err
	}
	vehicleID := strAttr(deal, "vehicle_id")
	vehicle, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(vehicleID))
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
	// The floor's index keys move with updated_at alone, as in any design with an updated_at index.
	rev := placeholder("rev")
	dealPut := &types.Put{TableName: aws.String(r.tables.Deals), Item: deal,
		ConditionExpression:       aws.String("(" + rev + " = :v0)"),
		ExpressionAttributeNames:  map[string]string{rev: "rev"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(dealRev)}}
	vehiclePut := &types.Put{TableName: aws.String(r.tables.Vehicles), Item: vehicle,
		ConditionExpression:       aws.String("(" + rev + " = :v0)"),
		ExpressionAttributeNames:  map[string]string{rev: "rev"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(vehicleRev)}}
	items := []types.TransactWriteItem{{Put: dealPut}, {Put: vehiclePut}}
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// updateVehicle is PUT /vehicles/{id} {"brand": brand, "price": price}: auth, the vehicle read,
// then the vehicle put back with its new brand and price, the next revision and a new updated_at,
// conditioned on the revision read: the floor.
func (r *rawClient) updateVehicle(ctx context.Context, p principal, id, brand string, price money.Cents) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	old, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
	if err != nil {
		return err
	}
	rev, err := numAttr(old, "rev")
	if err != nil {
		return err
	}
	status, now := strAttr(old, "status"), time.Now().UTC().Format(patio.TimestampLayout)
	next := replaceInStrings(old, strAttr(old, "updated_at"), now)
	next["brand"], next["f_brand"] = s(brand), s(patio.Fold(brand))
	next["price_cents"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(price), 10)}
	next["lsi_price"] = s(storeformat.SortKey(status, storeformat.Padded(12, int64(price)), id))
	plate := strAttr(old, "plate")
	words := patio.Vehicle{Title: strAttr(old, "title"), Brand: brand, Model: strAttr(old, "model"), Plate: &plate}.Words()
	next[storeformat.WordsAttr], next["rev"] = s(storeformat.JoinWords(words)), n(rev+1)
	_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.tables.Vehicles), Item: next,
		ConditionExpression: aws.String("(" + placeholder("rev") + " = :v0)"), ExpressionAttributeNames: map[string]string{placeholder("rev"): "rev"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(rev)}})
	return err
}
