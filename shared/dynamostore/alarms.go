package dynamostore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/patio"
)

// Timed events (CONTRACT.md section 15). A record with a pending alarm carries its entry in the
// sparse global index by_alarm of ActivitiesTable and FinancialTable: hash alarm_day (the alarm's
// UTC date), range alarm_key ("<instant>#<type>#<resource>#<team>#<id>", the instant in fixed-width
// UTC so keys sort by time). Records without a pending alarm (none due, completed, paid, cancelled,
// already fired) have neither attribute and are not in the index, so a timer tick reads only the
// alarms of its window: one query per UTC day the window spans. The index is eventually
// consistent, which a timer that looks back over its window tolerates.

// alarmLayout is the instant in an alarm key: fixed width, so that keys sort by time.
const alarmLayout = "2006-01-02T15:04:05.000Z"

// alarmEntry returns a pending alarm's index attributes.
func alarmEntry(resource, teamID, id string, a patio.Alarm) (day, key string) {
	at := a.At.UTC()
	return at.Format(time.DateOnly), strings.Join([]string{at.Format(alarmLayout), a.Type, resource, teamID, id}, "#")
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

// DueAlarms returns the pending alarms of activities and financial records scheduled in [from, to]
// (alarmStore of patio.Timer).
func (s *Store) DueAlarms(ctx context.Context, from, to time.Time) ([]patio.AlarmRef, error) {
	var out []patio.AlarmRef
	var tables []string
	for _, t := range []string{s.tables.Activities, s.tables.Financial} {
		if t != "" {
			tables = append(tables, t)
		}
	}
	lo, hi := from.UTC().Format(alarmLayout), to.UTC().Format(alarmLayout)+"~"
	type result struct{ rows []alarmIndexRow }
	var days []string
	for d := from.UTC().Truncate(24 * time.Hour); !d.After(to.UTC()); d = d.Add(24 * time.Hour) {
		days = append(days, d.Format(time.DateOnly))
	}
	results := make([]result, len(tables)*len(days))
	g, gctx := errgroup.WithContext(ctx)
	for i, table := range tables {
		for j, day := range days {
			g.Go(func() error {
				return s.db.Table(table).Get("alarm_day", day).Index("by_alarm").
					Range("alarm_key", dynamo.Between, lo, hi).All(gctx, &results[i*len(days)+j].rows)
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, wrap(err, "read due alarms", lo)
	}
	for _, r := range results {
		for _, row := range r.rows {
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
		r := records[patio.Activity, activityRow, patio.ActivityQuery]{s, &activityKind}
		return fire(ctx, r, a, func(cur patio.Activity) patio.Activity { return cur.Fired(a.Type, at) },
			func(u *dynamo.Update, row activityRow) *dynamo.Update {
				return u.Set("fired_due_soon", row.FiredDueSoon).Set("fired_overdue", row.FiredOverdue).Set("fired_at", row.FiredAt)
			})
	case patio.ResourceFinancial:
		r := records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s, &financialKind}
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
	if r.k.alarmKey(r.k.encode(cur)) != a.Key {
		return false, nil // moved, fired or no longer due since the index was read
	}
	next := r.k.encode(fired(cur))
	u := marks(r.table().Update("pk", a.TeamID).Range("sk", r.k.prefix+a.ID), next).
		If("'alarm_key' = ? AND 'rev' = ?", a.Key, revAttr(r.k.revision(cur)))
	if day, key := alarmAttrs(next, r.k.alarmKey); key != "" {
		u = u.Set("alarm_day", day).Set("alarm_key", key)
	} else {
		u = u.Remove("alarm_day", "alarm_key")
	}
	err = u.Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "fire alarm", a.Key)
}

// alarmAttrs reads a row's alarm entry (its day is the key's first ten characters).
func alarmAttrs[R any](row R, key func(R) string) (day, k string) {
	k = key(row)
	if len(k) >= 10 {
		day = k[:10]
	}
	return day, k
}
