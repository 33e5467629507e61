package webhookdb

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// deliveryCursor is where a page of a delivery list ends: the last delivery's creation (ms) and id.
type deliveryCursor struct {
	ms int64
	id string
}

func (c deliveryCursor) String() string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%013d#%s", c.ms, c.id))
}

func parseDeliveryCursor(s string) (deliveryCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	ms, id, ok := strings.Cut(string(raw), "#")
	n, perr := strconv.ParseInt(ms, 10, 64)
	if err != nil || !ok || perr != nil || len(ms) != 13 || !strings.HasPrefix(id, "dlv_") {
		return deliveryCursor{}, patio.Invalidf("cursor is not one a delivery list gave")
	}
	return deliveryCursor{n, id}, nil
}

// ListDeliveries queries the by_webhook index once per webhook and status, each on the range of
// status_key the time window and cursor leave ("<status>#<created ms>#<id>", newest first), and
// merges them: a page costs at most Limit+1 items per webhook and status, whatever the webhooks'
// history. Event types are a filter of those queries: a page of a rare type reads the deliveries
// of its statuses until it is full.
func (s *DeliveryLog) ListDeliveries(ctx context.Context, webhookIDs []string, q webhook.DeliveryQuery) ([]webhook.Delivery, string, error) {
	var cur *deliveryCursor
	if q.Cursor != "" {
		c, err := parseDeliveryCursor(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		cur = &c
	}
	low, high := int64(0), int64(9999999999999)
	if !q.Since.IsZero() {
		low = q.Since.UnixMilli()
	}
	if !q.Until.IsZero() {
		high = q.Until.UnixMilli()
	}
	parts := make([][]deliveryRow, len(webhookIDs))
	g, gctx := errgroup.WithContext(ctx)
	for i, webhookID := range webhookIDs {
		g.Go(func() (err error) {
			parts[i], err = s.listDeliveriesOf(gctx, webhookID, q, cur, low, high)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, "", err
	}
	all := slices.Concat(parts...)
	slices.SortFunc(all, func(a, b deliveryRow) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.PK, a.PK))
	})
	next := ""
	if len(all) > q.Limit {
		all = all[:q.Limit]
		last := all[len(all)-1]
		next = deliveryCursor{last.CreatedAt, last.PK}.String()
	}
	out, err := storecore.DecodeRows(all, deliveryRow.delivery)
	return out, next, storecore.Wrap(err, "decode deliveries of webhooks", strings.Join(webhookIDs, ","))
}

// listDeliveriesOf reads one webhook's part of a delivery list: up to Limit+1 rows per status,
// after the cursor, a query per status side by side.
func (s *DeliveryLog) listDeliveriesOf(ctx context.Context, webhookID string, q webhook.DeliveryQuery, cur *deliveryCursor, low, high int64) ([]deliveryRow, error) {
	parts := make([][]deliveryRow, len(q.Statuses))
	g, ctx := errgroup.WithContext(ctx)
	for i, st := range q.Statuses {
		from := fmt.Sprintf("%s#%013d#", st, low)
		to := fmt.Sprintf("%s#%013d#~", st, high)
		if cur != nil {
			if c := fmt.Sprintf("%s#%013d#%s", st, cur.ms, cur.id); c < to {
				to = c
			}
		}
		if to <= from {
			continue
		}
		query := s.deliveries().Get("webhook_id", webhookID).Index("by_webhook").Range("status_key", dynamo.Between, from, to).
			Order(dynamo.Descending).Limit(q.Limit + 1)
		if len(q.Types) > 0 {
			cond, args := make([]string, len(q.Types)), make([]any, len(q.Types))
			for i, typ := range q.Types {
				cond[i], args[i] = "'event_type' = ?", typ
			}
			query = query.Filter(strings.Join(cond, " OR "), args...)
		}
		g.Go(func() error {
			var rows []deliveryRow
			if err := query.All(ctx, &rows); err != nil {
				return storecore.Wrap(err, "list deliveries of webhook", webhookID)
			}
			for _, r := range rows {
				if cur == nil || r.CreatedAt != cur.ms || r.PK != cur.id {
					parts[i] = append(parts[i], r)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return slices.Concat(parts...), err
}

// Deliveries lists a webhook's deliveries (index by_webhook), optionally of one status, newest
// first within a status.
func (s *DeliveryLog) Deliveries(ctx context.Context, webhookID, status string) ([]webhook.Delivery, error) {
	q := s.deliveries().Get("webhook_id", webhookID).Index("by_webhook").Order(dynamo.Descending)
	if status != "" {
		q = q.Range("status_key", dynamo.BeginsWith, status+"#")
	}
	var rows []deliveryRow
	if err := q.All(ctx, &rows); err != nil {
		return nil, storecore.Wrap(err, "list deliveries of webhook", webhookID)
	}
	out, err := storecore.DecodeRows(rows, deliveryRow.delivery)
	return out, storecore.Wrap(err, "decode deliveries of webhook", webhookID)
}
