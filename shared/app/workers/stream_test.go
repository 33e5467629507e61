package workers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/shared/webhook"
)

// dispatchFunc is a ChangeDispatcher made of a function of one change: it dispatches a batch's
// changes one by one and stops at the first that fails.
type dispatchFunc func(context.Context, webhook.Change) error

func (f dispatchFunc) Dispatch(ctx context.Context, cs []webhook.Change) (int, error) {
	for i, c := range cs {
		if err := f(ctx, c); err != nil {
			return i, err
		}
	}
	return len(cs), nil
}

// loadStreamSample reads events/dispatcher-vehicles.json, a batch as DynamoDB Streams delivers it:
// the insert of a vehicle, the insert of its plate guard, then a modification of the vehicle.
func loadStreamSample(t *testing.T) events.DynamoDBEvent {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "events", "dispatcher-vehicles.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 3 {
		t.Fatalf("dispatcher-vehicles.json has %d records; want 3 (vehicle, guard, vehicle)", len(ev.Records))
	}
	return ev
}

func TestStreamHandler(t *testing.T) {
	errDispatch := errors.New("queue unavailable")
	sample := loadStreamSample(t)
	vehicle, guard, modify := sample.Records[0], sample.Records[1], sample.Records[2]
	undecodable := vehicle
	undecodable.EventID = "undecodable"
	undecodable.Change.SequenceNumber = "100000000000000000009"
	undecodable.Change.NewImage = map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("team")}
	removal := vehicle
	removal.EventID = "removal"
	removal.EventName = string(events.DynamoDBOperationTypeRemove)

	tests := []struct {
		name         string
		records      []events.DynamoDBEventRecord
		failOn       string   // the SourceID the dispatcher fails on
		wantDispatch []string // SourceIDs given to the dispatcher, in order
		wantFailures []string // sequence numbers reported
	}{
		{
			name:         "guards and removals are skipped",
			records:      []events.DynamoDBEventRecord{vehicle, guard, removal, modify},
			wantDispatch: []string{vehicle.EventID, modify.EventID},
		},
		{
			name:         "failing record is reported and stops the batch",
			records:      []events.DynamoDBEventRecord{vehicle, guard, modify},
			failOn:       vehicle.EventID,
			wantDispatch: []string{vehicle.EventID},
			wantFailures: []string{vehicle.Change.SequenceNumber},
		},
		{
			name:         "failing last record keeps the ones before",
			records:      []events.DynamoDBEventRecord{vehicle, guard, modify},
			failOn:       modify.EventID,
			wantDispatch: []string{vehicle.EventID, modify.EventID},
			wantFailures: []string{modify.Change.SequenceNumber},
		},
		{
			name:         "undecodable image is reported and stops the batch",
			records:      []events.DynamoDBEventRecord{vehicle, undecodable, modify},
			wantDispatch: []string{vehicle.EventID},
			wantFailures: []string{undecodable.Change.SequenceNumber},
		},
		{
			name: "empty batch",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []webhook.Change
			d := dispatchFunc(func(_ context.Context, c webhook.Change) error {
				got = append(got, c)
				if c.SourceID == tt.failOn {
					return errDispatch
				}
				return nil
			})
			h := streamHandler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))
			resp, err := h(context.Background(), events.DynamoDBEvent{Records: tt.records})
			if err != nil {
				t.Fatalf("handler error = %v; want nil (failures are reported per record)", err)
			}
			var failures []string
			for _, f := range resp.BatchItemFailures {
				failures = append(failures, f.ItemIdentifier)
			}
			if !slices.Equal(failures, tt.wantFailures) {
				t.Errorf("BatchItemFailures = %v; want %v", failures, tt.wantFailures)
			}
			var ids []string
			for _, c := range got {
				ids = append(ids, c.SourceID)
			}
			if !slices.Equal(ids, tt.wantDispatch) {
				t.Errorf("dispatched %v; want %v", ids, tt.wantDispatch)
			}
		})
	}
}

// TestStreamHandlerChange checks the change a record becomes: its resource, team, time and, for a
// modification, the record before.
func TestStreamHandlerChange(t *testing.T) {
	sample := loadStreamSample(t)
	var got []webhook.Change
	d := dispatchFunc(func(_ context.Context, c webhook.Change) error { got = append(got, c); return nil })
	if _, err := streamHandler(d, slog.New(slog.NewJSONHandler(io.Discard, nil)))(context.Background(), sample); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("dispatched %d changes; want 2", len(got))
	}
	tests := []struct {
		name    string
		rec     events.DynamoDBEventRecord
		got     webhook.Change
		wantOld bool
	}{
		{name: "insert", rec: sample.Records[0], got: got[0]},
		{name: "modify", rec: sample.Records[2], got: got[1], wantOld: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.got
			if c.Resource != webhook.ResourceVehicle {
				t.Errorf("Resource = %q; want %q", c.Resource, webhook.ResourceVehicle)
			}
			if want := tt.rec.Change.NewImage["pk"].String(); c.TeamID != want {
				t.Errorf("TeamID = %q; want %q", c.TeamID, want)
			}
			if want := tt.rec.Change.ApproximateCreationDateTime.Time; !c.At.Equal(want) {
				t.Errorf("At = %v; want the record's time %v", c.At, want)
			}
			if c.New == nil {
				t.Errorf("New = nil; want the decoded record")
			}
			if (c.Old != nil) != tt.wantOld {
				t.Errorf("Old = %v; want set: %v", c.Old, tt.wantOld)
			}
		})
	}
}

// A record whose key is not a record's own row (a list item, a count, a guard) is skipped on its
// key alone: its image, whatever it holds, is not decoded.
func TestStreamHandlerSkipsOtherRowsByKey(t *testing.T) {
	sample := loadStreamSample(t)
	item := sample.Records[0]
	item.EventID = "list-item"
	item.Change.Keys = map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("team"),
		"sk": events.NewStringAttribute("vo#ativo#0193")}
	// An image the decoder would refuse (no sort key): the key alone decides.
	item.Change.NewImage = map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("team")}
	var got []webhook.Change
	h := streamHandler(dispatchFunc(func(_ context.Context, c webhook.Change) error {
		got = append(got, c)
		return nil
	}), slog.New(slog.NewTextHandler(io.Discard, nil)))
	resp, err := h(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{item, sample.Records[0]}})
	if err != nil || len(resp.BatchItemFailures) != 0 || len(got) != 1 {
		t.Errorf("handler = %+v, %v with %d changes; want the list item skipped and the vehicle dispatched", resp, err, len(got))
	}
}
