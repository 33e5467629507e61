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
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
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
// and writes aside, whose raw side is their floor), on items of the store's format (storeformat);
// the report's sample calls compare both sides call by call, so a drift shows.
type rawClient struct {
	db     *dynamodb.Client
	tables dynamostore.Tables
	// vehicle is a seeded vehicle's stored item, copied (with id and plate replaced) by every raw
	// create, so raw items are the API's items byte for byte but for those values.
	vehicle     map[string]types.AttributeValue
	vehicleTeam string
}

// newRawClient returns a client configured as shared/dynamostore.New configures the store's: same
// AWS configuration and HTTP client, at most 3 attempts with short backoff, no retry quota.
func newRawClient(cfg aws.Config, tables dynamostore.Tables) *rawClient {
	return &rawClient{tables: tables, db: dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts, so.MaxBackoff, so.RateLimiter = 3, 200*time.Millisecond, ratelimit.None
		})
	})}
}

// placeholder returns the expression attribute name guregu/dynamo substitutes for an attribute
// name, so that raw requests are the store's byte for byte.
func placeholder(name string) string {
	return "#s" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(name))
}

// s is a string attribute value.
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// n is a number attribute value.
func n[T int | int64](v T) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(v), 10)}
}

// strAttr is an item's string attribute, or "".
func strAttr(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// revOf is an item's revision attribute.
func revOf(item map[string]types.AttributeValue) (int, error) {
	if v, ok := item["rev"].(*types.AttributeValueMemberN); ok {
		return strconv.Atoi(v.Value)
	}
	return 0, errors.New("raw: item has no number rev")
}

// getItem is a strongly consistent GetItem of a whole item, as guregu/dynamo's Get(...).One sends
// it. A missing item is an error.
func (r *rawClient) getItem(ctx context.Context, table, pk, sk string) (map[string]types.AttributeValue, error) {
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}, ConsistentRead: aws.Bool(true)})
	if err == nil && len(out.Item) == 0 {
		err = fmt.Errorf("raw: no item %s/%s in %s", pk, sk, table)
	}
	if err != nil {
		return nil, err
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
	return both(func() error { return read(teamID) }, func() error { return r.count(ctx, teamID, limits) })
}

// both runs a and b at the same time and joins their errors.
func both(a, b func() error) error {
	var aErr error
	var wg sync.WaitGroup
	wg.Go(func() { aErr = a() })
	bErr := b()
	wg.Wait()
	return errors.Join(bErr, aErr)
}

// authenticate is patio.Authenticate's reads: the key by hash, then the team it names.
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

// count is patio.Throttle's counting: the team's minute and day counters at once.
func (r *rawClient) count(ctx context.Context, teamID string, limits patio.Limits) error {
	now := time.Now().UTC()
	minute, day := rateKeys(teamID, now)
	return both(func() error {
		return r.increment(ctx, minute, 1, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour).Unix())
	}, func() error {
		return r.increment(ctx, day, 1, limits.PerDay, now.Truncate(24*time.Hour).Add(48*time.Hour).Unix())
	})
}

// rateKeys returns the partition keys of a team's request counters for the UTC minute and day of
// now (accountdb.Counters.Count).
func rateKeys(teamID string, now time.Time) (minute, day string) {
	now = now.UTC()
	return "rate#" + teamID + "#m#" + now.Format("200601021504"), "rate#" + teamID + "#d#" + now.Format("20060102")
}

// increment is dynamostore's counter update: ADD delta to count, SET expires_at, returning the new
// item; with limit > 0, only while count is below limit.
func (r *rawClient) increment(ctx context.Context, pk string, delta, limit int, expiresAt int64) error {
	count := placeholder("count") // "count" is a reserved word
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.tables.Accounts),
		Key:                       map[string]types.AttributeValue{"pk": s(pk), "sk": s("rate")},
		UpdateExpression:          aws.String("SET expires_at = :v1 ADD " + count + " :v0"),
		ExpressionAttributeNames:  map[string]string{count: "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(delta), ":v1": n(expiresAt)},
		ReturnValues:              types.ReturnValueAllNew,
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

// liftRateLimits starts the team's minute counters of the next minutes at -rateCredit: every
// request still runs the limiter's increments, they just never reach the limit.
func (r *rawClient) liftRateLimits(ctx context.Context, teamID string, minutes int) {
	now := time.Now().UTC()
	for m := range minutes {
		at := now.Add(time.Duration(m) * time.Minute)
		minute, _ := rateKeys(teamID, at)
		if err := r.increment(ctx, minute, -rateCredit, 0, at.Truncate(time.Minute).Add(time.Hour).Unix()); err != nil {
			check(fmt.Errorf("lift rate limits: %w", err))
		}
	}
}

// getRecord is GET /<resource>s/{id}: a read of the record.
func (r *rawClient) getRecord(ctx context.Context, p principal, table, resource, id string) error {
	return r.read(ctx, p, func(teamID string) error {
		_, err := r.getItem(ctx, table, teamID, storeformat.Of(resource).RowKey(id))
		return err
	})
}

// vehicleItem reads a vehicle's stored item.
func (r *rawClient) vehicleItem(ctx context.Context, teamID, id string) (map[string]types.AttributeValue, error) {
	return r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
}

// useVehicleTemplate keeps a seeded vehicle's item as the model of raw creates.
func (r *rawClient) useVehicleTemplate(ctx context.Context, teamID, id string) {
	item := must(r.vehicleItem(ctx, teamID, id))
	if strAttr(item, "plate") == "" || strAttr(item, "plate_key") == "" {
		check(errors.New("raw: the template vehicle has no plate"))
	}
	r.vehicle, r.vehicleTeam = item, teamID
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

// A write's raw side is its floor: what any design must write, on items of the request's shape;
// the store writes more in the same transaction (docs/storage.md).

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
	guard := map[string]types.AttributeValue{"pk": s(teamID), "sk": s(storeformat.PlateGuardKey(plateKey)), "owner": s(id)}
	var items []types.TransactWriteItem
	for _, it := range []map[string]types.AttributeValue{item, guard} {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(r.tables.Vehicles), Item: it,
			ConditionExpression: aws.String("(attribute_not_exists(pk))")}})
	}
	_, err := r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// vehicleCopy returns a copy of a stored vehicle item with a new id and the plate of plateIndex,
// its id and its plate key.
func vehicleCopy(template map[string]types.AttributeValue, plateIndex int) (item map[string]types.AttributeValue, id, plateKey string) {
	id, plate := uuid.Must(uuid.NewV7()).String(), oldPlate(plateIndex)
	plateKey = br.PlateKey(plate)
	was, wasKey := strAttr(template, "plate"), strAttr(template, "plate_key")
	item = replaceInStrings(template, strAttr(template, "id"), id, was, plate, wasKey, plateKey,
		strings.ToLower(was), strings.ToLower(plate), strings.ToLower(wasKey), strings.ToLower(plateKey))
	return item, id, plateKey
}

// revised returns a put of item changed by change (updated_at set to now first) at the next
// revision, conditioned on the one read.
func (r *rawClient) revised(table string, item map[string]types.AttributeValue, change func(item map[string]types.AttributeValue, now string)) (*types.Put, error) {
	rev, err := revOf(item)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Format(patio.TimestampLayout)
	item = replaceInStrings(item, strAttr(item, "updated_at"), now)
	change(item, now)
	item["rev"] = n(rev + 1)
	return &types.Put{TableName: aws.String(table), Item: item, ConditionExpression: aws.String("(" + placeholder("rev") + " = :v0)"),
		ExpressionAttributeNames: map[string]string{placeholder("rev"): "rev"}, ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(rev)}}, nil
}

// putItem sends put alone.
func (r *rawClient) putItem(ctx context.Context, put *types.Put) error {
	_, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues})
	return err
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
	vehicle, err := r.vehicleItem(ctx, teamID, strAttr(deal, "vehicle_id"))
	if err != nil {
		return err
	}
	dealPut, err := r.revised(r.tables.Deals, deal, func(it map[string]types.AttributeValue, now string) {
		it["status"], it["closed_at"] = s("ganho"), s(now)
	})
	if err != nil {
		return err
	}
	vehiclePut, err := r.revised(r.tables.Vehicles, vehicle, func(it map[string]types.AttributeValue, now string) {
		it["status"], it["sold_at"], it["sold_deal_id"] = s("vendido"), s(now), s(dealID)
	})
	if err != nil {
		return err
	}
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: dealPut}, {Put: vehiclePut}}})
	return err
}

// updateVehicle is PUT /vehicles/{id} {"brand": brand, "price": price} at its floor: auth, the
// vehicle read, then put back with its new brand, price and words, conditioned on the revision.
func (r *rawClient) updateVehicle(ctx context.Context, p principal, id, brand string, price money.Cents) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	old, err := r.vehicleItem(ctx, teamID, id)
	if err != nil {
		return err
	}
	put, err := r.revised(r.tables.Vehicles, old, func(it map[string]types.AttributeValue, _ string) {
		it["brand"], it["f_brand"] = s(brand), s(patio.Fold(brand))
		it["price_cents"] = n(int64(price))
		it["lsi_price"] = s(storeformat.SortKey(strAttr(old, "status"), storeformat.Padded(12, int64(price)), id))
		plate := strAttr(old, "plate")
		words := patio.Vehicle{Title: strAttr(old, "title"), Brand: brand, Model: strAttr(old, "model"), Plate: &plate}.Words()
		it[storeformat.WordsAttr] = s(storeformat.JoinWords(words))
	})
	if err != nil {
		return err
	}
	return r.putItem(ctx, put)
}

// setStatus is a status change as made before lists at any size: read the row, put it back.
func (r *rawClient) setStatus(ctx context.Context, teamID, id, status string) error {
	item, err := r.vehicleItem(ctx, teamID, id)
	if err != nil {
		return err
	}
	old := strAttr(item, "status")
	put, err := r.revised(r.tables.Vehicles, replaceInStrings(item, old+"#", status+"#"), func(it map[string]types.AttributeValue, _ string) {
		it["status"] = s(status)
	})
	if err != nil {
		return err
	}
	return r.putItem(ctx, put)
}

// listFloor is the raw baseline of a list page: one strongly consistent Query of limit items of
// the range the store reads first for the page (the first status shown, in the list's order).
type listFloor struct {
	table, index, attr string
	lo, hi             string // inclusive bounds of the sort key
	desc               bool
	limit              int
}

// newListFloor returns the floor of a page of resource's list sorted by field showing status
// first, of the rows or of a facet value's items (facet "<name>=<value>", "" for none).
func newListFloor(table, resource, field string, desc bool, status, facet string, limit int) listFloor {
	l := storeformat.Of(resource)
	ix, ok := l.Sorts[field]
	if !ok {
		panic(fmt.Sprintf("bench: %s has no sort %q", resource, field))
	}
	f := listFloor{table: table, index: ix.Index, attr: ix.Attr, desc: desc, limit: limit}
	if ix.Index == "" {
		base := l.OrderPrefix(status)
		if facet != "" {
			base = l.FacetPrefix(facet, status)
		}
		f.attr, f.lo, f.hi = "sk", base, base+"\U0010FFFF"
		return f
	}
	base := status + "#1"
	if facet != "" {
		base = facet + "#" + base
	}
	f.lo, f.hi = base+"#", base+"$"
	return f
}

// list is GET /<resource>?… at its floor: a read of the floor's one Query.
func (r *rawClient) list(ctx context.Context, p principal, f listFloor) error {
	return r.read(ctx, p, func(teamID string) error {
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
		_, err := r.db.Query(ctx, in)
		return err
	})
}
