package dynamostore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Timed events (due soon, overdue). A record with a pending alarm carries its entry in the
// sparse global index by_alarm of ActivitiesTable and FinancialTable: hash alarm_day, range
// alarm_key ("<instant>#<type>#<resource>#<team>#<id>", the instant in fixed-width UTC so keys sort
// by time). Records without a pending alarm (none due, completed, paid, cancelled, already fired)
// have neither attribute and are not in the index, which therefore holds pending alarms only: a
// firing removes its entry or moves it to the record's next alarm. So a timer tick reads everything
// due up to the end of its window with one query per table, whatever the hour, and an alarm a
// missed tick left behind is still found by the next, however late.
//
// alarm_day holds one value, alarmSet (storeformat.AlarmSet), in every entry, so a tick reads one
// partition per table whatever its window; the index's first format held the alarm's UTC date
// there (package migration moves such entries), and a global index's key schema cannot change in
// place, hence the name. One partition key value takes the index writes of every team: DynamoDB serves
// about 1,000 writes a second to one value of an index, and arming, moving or clearing an alarm
// is one or two of them, which is far above what the platform's activities and financial records
// see; should it not be, alarmSet becomes a few values and a tick one query per value
// (docs/storage.md).
const alarmSet = storeformat.AlarmSet

// alarmLayout is the instant in an alarm key: fixed width, so that keys sort by time.
const alarmLayout = "2006-01-02T15:04:05.000Z"

// alarmEntry returns a pending alarm's index attributes.
func alarmEntry(resource, teamID, id string, a patio.Alarm) (set, key string) {
	return alarmSet, strings.Join([]string{a.At.UTC().Format(alarmLayout), a.Type, resource, teamID, id}, "#")
}

// parseAlarmKey reads an index entry back.
func parseAlarmKey(key string) (patio.AlarmRef, error) {
	parts := strings.Split(key, "#")
	if len(parts) != 5 {
		return patio.AlarmRef{}, fmt.Errorf("dynamostore: malformed alarm key %q", key)
	}
	at, err := time.Parse(alarmLayout, parts[0])
	if err != nil {
		return patio.AlarmRef{}, fmt.Errorf("dynamostore: malformed alarm key %q: %w", key, err)
	}
	return patio.AlarmRef{At: at, Type: parts[1], Resource: parts[2], TeamID: parts[3], ID: parts[4], Key: key}, nil
}

// alarmIndexRow is what by_alarm projects (keys only).
type alarmIndexRow struct {
	AlarmKey string `dynamo:"alarm_key"`
}

// alarmTables returns the configured tables that hold alarms.
func (s *core) alarmTables() []string {
	var tables []string
	for _, t := range []string{s.db.Tables.Activities, s.db.Tables.Financial} {
		if t != "" {
			tables = append(tables, t)
		}
	}
	return tables
}

// DueAlarms returns the pending alarms of activities and financial records scheduled at or before
// until (alarmStore of patio.Timer): one query per table, side by side.
func (s *Store) DueAlarms(ctx context.Context, until time.Time) ([]patio.AlarmRef, error) {
	tables := s.alarmTables()
	hi := until.UTC().Format(alarmLayout) + "~"
	results := make([][]alarmIndexRow, len(tables))
	g, gctx := errgroup.WithContext(ctx)
	for i, table := range tables {
		g.Go(func() error {
			return s.db.Dynamo.Table(table).Get("alarm_day", alarmSet).Index("by_alarm").
				Range("alarm_key", dynamo.LessOrEqual, hi).All(gctx, &results[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, storecore.Wrap(err, "read due alarms until", hi)
	}
	var out []patio.AlarmRef
	for _, rows := range results {
		for _, row := range rows {
			a, err := parseAlarmKey(row.AlarmKey)
			if err != nil {
				return nil, patio.Internal(err)
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// FireAlarm marks a pending alarm as fired on its record, only while it is still the record's
// pending alarm: the record's fired mark and its next alarm are set in one conditional update that
// leaves its revision, updated_at and order item alone. It reports whether it fired.
func (s *Store) FireAlarm(ctx context.Context, a patio.AlarmRef, at time.Time) (bool, error) {
	switch a.Resource {
	case patio.ResourceActivity:
		r := records[patio.Activity, activityRow, patio.ActivityQuery]{s.core, &activityKind}
		return fire(ctx, r, a, func(cur patio.Activity) patio.Activity { return cur.Fired(a.Type, at) },
			func(u *dynamo.Update, row activityRow) *dynamo.Update {
				return u.Set("fired_due_soon", row.FiredDueSoon).Set("fired_overdue", row.FiredOverdue).Set("fired_at", row.FiredAt)
			})
	case patio.ResourceFinancial:
		r := records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s.core, &financialKind}
		return fire(ctx, r, a, func(cur patio.FinancialRecord) patio.FinancialRecord { return cur.Fired(a.Type, at) },
			func(u *dynamo.Update, row financialRow) *dynamo.Update {
				return u.Set("fired_overdue", row.FiredOverdue).Set("fired_at", row.FiredAt)
			})
	}
	return false, patio.Internal(fmt.Errorf("dynamostore: alarm of unknown resource %q", a.Resource))
}

func fire[T, R, Q any](ctx context.Context, r records[T, R, Q], a patio.AlarmRef, fired func(T) T,
	marks func(*dynamo.Update, R) *dynamo.Update) (bool, error) {
	cur, _, err := r.get(ctx, a.TeamID, a.ID)
	if patio.IsKind(err, patio.KindNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if r.k.alarmKey(r.k.Encode(cur)) != a.Key {
		return false, nil // moved, fired or no longer due since the index was read
	}
	next := r.k.Encode(fired(cur))
	u := marks(r.table().Update("pk", a.TeamID).Range("sk", r.k.prefix+a.ID), next).
		If("'alarm_key' = ? AND 'rev' = ?", a.Key, revAttr(r.k.revision(cur)))
	if key := r.k.alarmKey(next); key != "" {
		u = u.Set("alarm_day", alarmSet).Set("alarm_key", key)
	} else {
		u = u.Remove("alarm_day", "alarm_key")
	}
	err = u.Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, storecore.Wrap(err, "fire alarm", a.Key)
}
