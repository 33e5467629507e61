package dynamostore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/webhook"
)

// StreamChange returns the change of one record of a resource table's stream (as Lambda delivers
// it), ok false when it is not the insert or modification of a record's own row: the key says so
// before an image is decoded (decodeImage).
func StreamChange(rec events.DynamoDBEventRecord) (webhook.Change, bool, error) {
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) && rec.EventName != string(events.DynamoDBOperationTypeModify) {
		return webhook.Change{}, false, nil
	}
	// The key says whether the record is a record's own row; anything else (a guard, a list
	// item, a count) is skipped before its image is decoded.
	if !recordKey(rec.Change.Keys) {
		return webhook.Change{}, false, nil
	}
	img, ok, err := decodeImage(rec.Change.NewImage)
	if err != nil || !ok {
		return webhook.Change{}, false, err
	}
	c := webhook.Change{SourceID: rec.EventID, Resource: img.resource, TeamID: img.team, New: img.record,
		At: rec.Change.ApproximateCreationDateTime.Time}
	if by, ok := rec.Change.NewImage[storeformat.ByKeyAttr]; ok && by.DataType() == events.DataTypeString {
		c.By = by.String()
	}
	if w, ok := rec.Change.NewImage[storeformat.WrittenAttr]; ok && w.DataType() == events.DataTypeNumber {
		if ms, err := strconv.ParseInt(w.Number(), 10, 64); err == nil {
			c.Written = time.UnixMilli(ms).UTC()
		}
	}
	if c.At.IsZero() {
		c.At = time.Now()
	}
	if rec.EventName == string(events.DynamoDBOperationTypeModify) {
		old, ok, err := decodeImage(rec.Change.OldImage)
		if err != nil {
			return webhook.Change{}, false, err
		}
		if ok {
			c.Old = old.record
		}
	}
	return c, true, nil
}

// recordKey reports whether a stream record's keys are those of a record's own row (a vehicle,
// client, deal, activity or financial record): its sort key starts with its kind's prefix. Records
// without keys (samples built by hand) are taken as rows, their image deciding.
func recordKey(keys map[string]events.DynamoDBAttributeValue) bool {
	sk, ok := keys["sk"]
	if !ok || sk.DataType() != events.DataTypeString {
		return len(keys) == 0
	}
	for _, l := range []*storeformat.Layout{storeformat.Vehicles, storeformat.Clients, storeformat.Deals, storeformat.Activities, storeformat.Financial} {
		if strings.HasPrefix(sk.String(), l.RowPrefix()) {
			return true
		}
	}
	return false
}

// streamImage is a record's row as a stream record's image holds it, decoded.
type streamImage struct {
	resource string // webhook.ResourceVehicle, ...
	// record is the domain record (patio.Vehicle, patio.Client, patio.Deal, patio.Activity or
	// patio.FinancialRecord), whose JSON form is the API representation.
	record any
	team   string
}

// decodeImage turns an image of a resource table's stream record (as Lambda delivers it) into
// the domain record, with the same row conversions the store reads with. ok is false for items
// that are not records (uniqueness guards) and for an empty image.
func decodeImage(image map[string]events.DynamoDBAttributeValue) (streamImage, bool, error) {
	if len(image) == 0 {
		return streamImage{}, false, nil
	}
	item := make(dynamo.Item, len(image))
	for k, v := range image {
		var err error
		if item[k], err = fromStream(v); err != nil {
			return streamImage{}, false, fmt.Errorf("dynamostore: stream image attribute %s: %w", k, err)
		}
	}
	sk, _ := item["sk"].(*types.AttributeValueMemberS)
	if sk == nil {
		return streamImage{}, false, fmt.Errorf("dynamostore: stream image without a string sk")
	}
	switch {
	case strings.HasPrefix(sk.Value, storeformat.Vehicles.RowPrefix()):
		return decodeRow(item, webhook.ResourceVehicle, vehicleRow.Vehicle)
	case strings.HasPrefix(sk.Value, storeformat.Clients.RowPrefix()):
		return decodeRow(item, webhook.ResourceClient, clientRow.Client)
	case strings.HasPrefix(sk.Value, storeformat.Deals.RowPrefix()):
		return decodeRow(item, webhook.ResourceDeal, dealRow.Deal)
	case strings.HasPrefix(sk.Value, storeformat.Activities.RowPrefix()):
		return decodeRow(item, webhook.ResourceActivity, activityRow.activity)
	case strings.HasPrefix(sk.Value, storeformat.Financial.RowPrefix()):
		return decodeRow(item, webhook.ResourceFinancial, financialRow.record)
	}
	return streamImage{}, false, nil
}

// decodeRow decodes item as a row of type R, the record of resource that decode makes of it.
func decodeRow[R, T any](item dynamo.Item, resource string, decode func(R) (T, error)) (streamImage, bool, error) {
	var row R
	if err := dynamo.UnmarshalItem(item, &row); err != nil {
		return streamImage{}, false, fmt.Errorf("dynamostore: decode %s stream image: %w", resource, err)
	}
	rec, err := decode(row)
	if err != nil {
		return streamImage{}, false, fmt.Errorf("dynamostore: decode %s stream image: %w", resource, err)
	}
	pk, _ := item["pk"].(*types.AttributeValueMemberS)
	if pk == nil {
		return streamImage{}, false, fmt.Errorf("dynamostore: %s stream image without a string pk", resource)
	}
	return streamImage{resource: resource, record: rec, team: pk.Value}, true, nil
}

// fromStream converts a Lambda stream attribute value to the SDK's.
func fromStream(v events.DynamoDBAttributeValue) (types.AttributeValue, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		l := v.List()
		out := make([]types.AttributeValue, len(l))
		for i, e := range l {
			var err error
			if out[i], err = fromStream(e); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case events.DataTypeMap:
		m := v.Map()
		out := make(map[string]types.AttributeValue, len(m))
		for k, e := range m {
			var err error
			if out[k], err = fromStream(e); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberM{Value: out}, nil
	}
	return nil, fmt.Errorf("unknown attribute type %v", v.DataType())
}
