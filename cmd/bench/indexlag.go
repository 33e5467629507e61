package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// The indexer under the sustained load (docs/storage.md, "The lag"): how long a write takes to
// show in a filtered list while the load runs (a probe vehicle of a brand of its own every
// probeEvery, timed from its create's start until `?brand=<it>` lists it, and until the team's
// stream mark says the indexer followed it), and how fast the indexer follows a backlog, beside
// the rate the API sustains.

// probeEvery is the interval between the lag probe's vehicles.
const probeEvery = 2 * time.Second

// indexProbe times probe vehicles on one team of the load.
type indexProbe struct {
	url, key string
	teamID   string
	client   *http.Client
	raw      *rawClient
	mu       sync.Mutex
	listed   []time.Duration // until the brand's list holds the probe
	followed []time.Duration // until the team's stream mark holds its write
	missed   int             // probes not listed within a minute
}

// run creates a probe every probeEvery until ctx ends, each timed side by side.
func (p *indexProbe) run(ctx context.Context) {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		wg.Go(func() { p.one(ctx, n) })
	}
}

// one creates one probe and times it.
func (p *indexProbe) one(ctx context.Context, n int) {
	brand := fmt.Sprintf("Sonda%06d", n)
	body := fmt.Sprintf(`{"brand":%q,"model":"Lag","price":1000}`, brand)
	start := time.Now()
	if st, _, _, err := fetch(ctx, p.client, http.MethodPost, p.url+"/api/v1/vehicles", []byte(body), authorized(p.key, nil), 0, true); err != nil || st != http.StatusCreated {
		return
	}
	var listed, followed time.Duration
	deadline := start.Add(time.Minute)
	for (listed == 0 || followed == 0) && time.Now().Before(deadline) && ctx.Err() == nil {
		if listed == 0 {
			var out struct{ Pagination struct{ Total int } }
			st, _, data, err := fetch(ctx, p.client, http.MethodGet, p.url+"/api/v1/vehicles?limit=1&brand="+url.QueryEscape(brand), nil, authorized(p.key, nil), 0, true)
			if err == nil && st == http.StatusOK && json.Unmarshal(data, &out) == nil && out.Pagination.Total == 1 {
				listed = time.Since(start)
			}
		}
		if followed == 0 {
			if f, err := p.raw.fence(ctx, p.teamID); err == nil && !f.Through.Before(start) {
				followed = time.Since(start)
			}
		}
		sleepCtx(ctx, 25*time.Millisecond)
	}
	if ctx.Err() != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if listed == 0 || followed == 0 {
		p.missed++
		return
	}
	p.listed, p.followed = append(p.listed, listed), append(p.followed, followed)
}

// fence reads a team's vehicles stream mark (strongly consistent).
func (c *rawClient) fence(ctx context.Context, teamID string) (storeformat.Fence, error) {
	out, err := c.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.tables.Vehicles), ConsistentRead: aws.Bool(true),
		Key: key(teamID, storeformat.Vehicles.StreamMarkKey())})
	if err != nil {
		return storeformat.Fence{}, err
	}
	return storeformat.FenceOf(dynamo.Item(out.Item)), nil
}

// followedSince waits until the indexer has followed a team's writes made from since on (its
// stream mark's fence holds a write at or after it, none under way) and returns when, or false
// after limit.
func (c *rawClient) followedSince(ctx context.Context, teamID string, since time.Time, limit time.Duration) (time.Time, bool) {
	var at time.Time
	ok := waitFor(ctx, limit, 10*time.Millisecond, func() bool {
		f, err := c.fence(ctx, teamID)
		at = time.Now()
		return err == nil && !f.Through.Before(since) && !f.Busy(at)
	})
	return at, ok
}
