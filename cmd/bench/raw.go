package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/guregu/dynamo/v2"

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
	// vehicle is a seeded vehicle, copied (with id and plate replaced) by every raw create and
	// stored as the store stores it (storeformat.VehicleItem).
	vehicle patio.Vehicle
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

// key is an item's key.
func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{storeformat.PartitionAttr: s(pk), storeformat.SortAttr: s(sk)}
}

// getItem is a strongly consistent GetItem of a whole item, as guregu/dynamo's Get(...).One sends
// it. A missing item is an error.
func (r *rawClient) getItem(ctx context.Context, table, pk, sk string) (map[string]types.AttributeValue, error) {
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: key(pk, sk), ConsistentRead: aws.Bool(true)})
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
	apiKey, err := r.getItem(ctx, r.tables.Accounts, storeformat.APIKeyKey(p.keyHash), storeformat.KeySort)
	if err != nil {
		return "", patio.Limits{}, err
	}
	teamID := strAttr(apiKey, storeformat.TeamIDAttr)
	team, err := r.getItem(ctx, r.tables.Accounts, storeformat.TeamKey(teamID), storeformat.TeamSort)
	if err != nil {
		return "", patio.Limits{}, err
	}
	return teamID, patio.Plan(strAttr(team, storeformat.PlanAttr)).Limits(), nil
}

// count is patio.Throttle's counting: the team's minute and day counters at once.
func (r *rawClient) count(ctx context.Context, teamID string, limits patio.Limits) error {
	now := time.Now().UTC()
	minute, day := storeformat.RateKeys(teamID, now)
	return both(func() error {
		return r.increment(ctx, minute, 1, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour).Unix())
	}, func() error {
		return r.increment(ctx, day, 1, limits.PerDay, now.Truncate(24*time.Hour).Add(48*time.Hour).Unix())
	})
}

// increment is dynamostore's counter update: ADD delta to count, SET expires_at, returning the new
// item; with limit > 0, only while count is below limit.
func (r *rawClient) increment(ctx context.Context, pk string, delta, limit int, expiresAt int64) error {
	const count = "#count" // "count" is a reserved word
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.tables.Accounts),
		Key:                       key(pk, storeformat.RateSort),
		UpdateExpression:          aws.String("SET " + storeformat.ExpiresAtAttr + " = :v1 ADD " + count + " :v0"),
		ExpressionAttributeNames:  map[string]string{count: storeformat.CountAttr},
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
		minute, _ := storeformat.RateKeys(teamID, at)
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

// vehicleOf reads a vehicle as stored.
func (r *rawClient) vehicleOf(ctx context.Context, teamID, id string) (patio.Vehicle, error) {
	var row storeformat.VehicleRow
	item, err := r.getItem(ctx, r.tables.Vehicles, teamID, storeformat.Vehicles.RowKey(id))
	if err == nil {
		err = dynamo.UnmarshalItem(item, &row)
	}
	if err != nil {
		return patio.Vehicle{}, err
	}
	return row.Vehicle()
}

// useVehicleTemplate keeps a seeded vehicle as the model of raw creates.
func (r *rawClient) useVehicleTemplate(ctx context.Context, teamID, id string) {
	r.vehicle = must(r.vehicleOf(ctx, teamID, id))
	if r.vehicle.Plate == nil {
		check(errors.New("raw: the template vehicle has no plate"))
	}
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
	if teamID != r.vehicle.TeamID {
		return errors.New("raw: create in a team other than the template's")
	}
	v, plate := r.vehicle, oldPlate(plateIndex)
	v.ID, v.Plate = uuid.Must(uuid.NewV7()).String(), &plate
	item, err := storeformat.VehicleItem(v)
	if err != nil {
		return err
	}
	guard := key(teamID, storeformat.PlateGuardKey(v.PlateKey()))
	guard[storeformat.GuardOwnerAttr] = s(v.ID)
	isNew := aws.String("attribute_not_exists(" + storeformat.PartitionAttr + ")")
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(r.tables.Vehicles), Item: item, ConditionExpression: isNew}},
		{Put: &types.Put{TableName: aws.String(r.tables.Vehicles), Item: guard, ConditionExpression: isNew}},
	}})
	return err
}

// revised returns a put of a record's item (built from the record as changed), conditioned on the
// revision it was read at.
func revised(table string, revision int, item dynamo.Item) *types.Put {
	const rev = "#rev"
	return &types.Put{TableName: aws.String(table), Item: item, ConditionExpression: aws.String("(" + rev + " = :v0)"),
		ExpressionAttributeNames:  map[string]string{rev: storeformat.RevisionAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v0": n(storeformat.RevAttr(revision))}}
}

// touch stamps a record's next revision at now.
func touch(updated *patio.Timestamp, revision *int, now patio.Timestamp) int {
	was := *revision
	*updated, *revision = now, was+1
	return was
}

// winDeal is PUT /deals/{id} {"status":"ganho"} at its floor: auth, the deal, the vehicle it
// names, then one transaction writing both, each conditioned on the revision read.
func (r *rawClient) winDeal(ctx context.Context, p principal, dealID string) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	var row storeformat.DealRow
	item, err := r.getItem(ctx, r.tables.Deals, teamID, storeformat.Deals.RowKey(dealID))
	if err == nil {
		err = dynamo.UnmarshalItem(item, &row)
	}
	if err != nil {
		return err
	}
	d, err := row.Deal()
	if err != nil || d.VehicleID == nil {
		return errors.Join(err, errors.New("raw: the deal names no vehicle"))
	}
	v, err := r.vehicleOf(ctx, teamID, *d.VehicleID)
	if err != nil {
		return err
	}
	now := patio.NewTimestamp(time.Now())
	d.Status, d.ClosedAt = patio.DealWon, &now
	v.Status, v.SoldAt, v.SoldDealID = patio.VehicleSold, &now, &d.ID
	dealWas, vehicleWas := touch(&d.UpdatedAt, &d.Revision, now), touch(&v.UpdatedAt, &v.Revision, now)
	dealItem, err := storeformat.DealItem(d)
	if err != nil {
		return err
	}
	vehicleItem, err := storeformat.VehicleItem(v)
	if err != nil {
		return err
	}
	_, err = r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: revised(r.tables.Deals, dealWas, dealItem)}, {Put: revised(r.tables.Vehicles, vehicleWas, vehicleItem)}}})
	return err
}

// updateVehicle is PUT /vehicles/{id} {"brand": brand, "price": price} at its floor: auth, the
// vehicle read, then put back with its new brand, price and words, conditioned on the revision.
func (r *rawClient) updateVehicle(ctx context.Context, p principal, id, brand string, price money.Cents) error {
	teamID, err := r.auth(ctx, p)
	if err != nil {
		return err
	}
	v, err := r.vehicleOf(ctx, teamID, id)
	if err != nil {
		return err
	}
	v.Brand, v.Price = brand, price
	was := touch(&v.UpdatedAt, &v.Revision, patio.NewTimestamp(time.Now()))
	item, err := storeformat.VehicleItem(v)
	if err != nil {
		return err
	}
	put := revised(r.tables.Vehicles, was, item)
	_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues})
	return err
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
		f.attr, f.lo, f.hi = storeformat.SortAttr, base, base+"\U0010FFFF"
		return f
	}
	f.lo, f.hi = storeformat.ValuedRange(facet, status)
	return f
}

// list is GET /<resource>?… at its floor: a read of the floor's one Query.
func (r *rawClient) list(ctx context.Context, p principal, f listFloor) error {
	return r.read(ctx, p, func(teamID string) error {
		in := &dynamodb.QueryInput{
			TableName:                 aws.String(f.table),
			KeyConditionExpression:    aws.String(storeformat.PartitionAttr + " = :pk AND #k BETWEEN :lo AND :hi"),
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
