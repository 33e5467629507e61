package dynamostore

import (
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/webhook"
)

// StreamChange returns the change of one record of a resource table's stream (as Lambda delivers
// it), ok false when it is not the insert or modification of a record's own row: the key says so
// before an image is decoded (DecodeStreamImage).
func StreamChange(rec events.DynamoDBEventRecord) (webhook.Change, bool, error) {
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) && rec.EventName != string(events.DynamoDBOperationTypeModify) {
		return webhook.Change{}, false, nil
	}
	// The key says whether the record is a record's own row; anything else (a guard, a list
	// item, a count) is skipped before its image is decoded.
	if !recordKey(rec.Change.Keys) {
		return webhook.Change{}, false, nil
	}
	resource, newRec, teamID, ok, err := DecodeStreamImage(rec.Change.NewImage)
	if err != nil || !ok {
		return webhook.Change{}, false, err
	}
	c := webhook.Change{SourceID: rec.EventID, Resource: resource, TeamID: teamID, New: newRec,
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
		_, oldRec, _, ok, err := DecodeStreamImage(rec.Change.OldImage)
		if err != nil {
			return webhook.Change{}, false, err
		}
		if ok {
			c.Old = oldRec
		}
	}
	return c, true, nil
}
