package localaws

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// checkpointEvery is how often changed stream positions are written to their file. A crash loses at
// most this much progress; the records after the kept position are handed over again, which the
// dispatcher recognises (deterministic ids).
const checkpointEvery = 500 * time.Millisecond

// shardPosition is how far one shard was handed over.
type shardPosition struct {
	// Seq is the sequence number of the last record the handler was done with ("" for none).
	Seq string `json:"seq,omitempty"`
	// Done marks a closed shard read to its end.
	Done bool `json:"done,omitempty"`
}

// checkpoints are the positions of the shards of the polled streams (stream ARN → shard id →
// position), kept in a JSON file when it has a path. Safe for concurrent use.
type checkpoints struct {
	path  string
	mu    sync.Mutex
	pos   map[string]map[string]shardPosition
	dirty bool
	quit  chan struct{}
	once  sync.Once
}

// loadCheckpoints reads the positions kept in path for the given streams; positions of other
// streams (tables since re-created) are dropped. A missing file, or path "", is no position yet.
func loadCheckpoints(path string, arns []string) (*checkpoints, error) {
	c := &checkpoints{path: path, pos: map[string]map[string]shardPosition{}, quit: make(chan struct{})}
	var kept map[string]map[string]shardPosition
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("localaws: stream checkpoints: %w", err)
		default:
			if err := json.Unmarshal(data, &kept); err != nil {
				return nil, fmt.Errorf("localaws: stream checkpoints %s: %w", path, err)
			}
		}
	}
	for _, arn := range arns {
		c.pos[arn] = map[string]shardPosition{}
		for shard, p := range kept[arn] {
			c.pos[arn][shard] = p
		}
	}
	return c, nil
}

// position returns the sequence number a shard was handed over to, "" when none.
func (c *checkpoints) position(arn, shard string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pos[arn][shard].Seq
}

// done reports whether a shard was read to its end.
func (c *checkpoints) done(arn, shard string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pos[arn][shard].Done
}

// set records that the handler is done with the shard's records up to seq.
func (c *checkpoints) set(arn, shard, seq string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pos[arn][shard] = shardPosition{Seq: seq}
	c.dirty = true
}

// finish records that a closed shard was read to its end.
func (c *checkpoints) finish(arn, shard string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pos[arn][shard]
	p.Done = true
	c.pos[arn][shard] = p
	c.dirty = true
}

// run writes changed positions every checkpointEvery, and once more when stop is called (after the
// pollers ended, so that their last positions are kept).
func (c *checkpoints) run(logger *slog.Logger) {
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		stopped := false
		select {
		case <-t.C:
		case <-c.quit:
			stopped = true
		}
		if err := c.save(); err != nil {
			logger.Warn("local stream: writing the checkpoints failed", slog.String("error", err.Error()))
		}
		if stopped {
			return
		}
	}
}

func (c *checkpoints) stop() { c.once.Do(func() { close(c.quit) }) }

// save writes the positions when they changed, atomically (a temporary file renamed).
func (c *checkpoints) save() error {
	c.mu.Lock()
	if !c.dirty || c.path == "" {
		c.mu.Unlock()
		return nil
	}
	data, err := json.MarshalIndent(c.pos, "", "  ")
	c.dirty = false
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.path)
}
