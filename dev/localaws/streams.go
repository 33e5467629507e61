package localaws

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DynamoDB Local keeps every table's stream records in one SQLite table (us: stream, shard,
// sequence number, record) whose only index is the sequence number. Each GetRecords, and each
// description of a stream, asks for a shard's or a stream's records by its id: without an index
// on the ids, every one of those reads scans every stream record the engine holds (24 hours of
// every table's changes). The local stack polls five streams a few times a second, so its
// engine's work grew with every write until the polls filled it: 25 creates a second on a fresh
// database fell to 10 at 1,500 vehicles and to 3 at 3,000.
//
// indexStreams adds two indexes (on the stream and on the shard ids) and statistics that steer the
// engine's SQLite (3.8.7) to the shard index wherever a shard is named: its records after a
// position, its first and its last. Each read then costs what it returns, whatever the database
// holds. It runs streamindex.java with the engine's own SQLite library (sqlite4java, shipped with
// DynamoDB Local), beside the running engine, which picks the indexes up at its next statement.

//go:embed streamindex.java
var streamIndexSource []byte

// indexStreams runs streamindex.java on the engine's database file db, with java and the
// engine's library directory lib.
func indexStreams(ctx context.Context, java, lib, db string) error {
	dir, err := os.MkdirTemp("", "patio-streamindex-")
	if err != nil {
		return fmt.Errorf("localaws: %w", err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "streamindex.java")
	if err := os.WriteFile(src, streamIndexSource, 0o644); err != nil {
		return fmt.Errorf("localaws: %w", err)
	}
	// The engine may answer its first request before its database file can be opened by another
	// process (seen under load at the start of `make test`: "unable to open database file"): wait
	// for the file, and run again a run that could not open it, for a while.
	deadline := time.Now().Add(dbFileWait)
	for {
		_, statErr := os.Stat(db)
		if statErr == nil || time.Now().After(deadline) {
			cmd := exec.CommandContext(ctx, java, "-Djava.library.path="+lib, "-cp", filepath.Join(lib, "sqlite4java.jar"), src, db)
			out, err := cmd.CombinedOutput()
			if err == nil {
				return nil
			}
			if time.Now().After(deadline) || !strings.Contains(string(out), "unable to open database file") {
				return fmt.Errorf("localaws: index DynamoDB Local's stream records in %s: %w: %s", db, err, strings.TrimSpace(string(out)))
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dbFileWait is how long indexStreams waits for the engine's database file to be there and open.
const dbFileWait = 15 * time.Second
