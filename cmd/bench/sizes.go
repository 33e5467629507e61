package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// binarySize is one Lambda function's bootstrap, built as deployed.
type binarySize struct {
	function string // functions/<name>
	bytes    int64
}

// maxBinaryBytes is the size budget of each function binary: 12 MB, decimal (the stricter reading),
// except the console's (maxConsoleBytes).
const maxBinaryBytes = 12_000_000

// maxConsoleBytes is the console function's size budget: 16 MB, decimal. Its html/template makes
// the linker keep every exported method of every type it links (text/template looks methods up by
// name at run time), so its AWS clients weigh more there than in the API functions.
const maxConsoleBytes = 16_000_000

// budget returns the size budget of the binary.
func (b binarySize) budget() int64 {
	if b.function == "functions/console" {
		return maxConsoleBytes
	}
	return maxBinaryBytes
}

// buildSizes builds every functions/<name> directory the way the Makefile's build-<Function> targets
// do (linux/arm64, CGO off, -tags lambda.norpc -trimpath -ldflags "-s -w") into a temporary
// directory, and returns the binaries' sizes. Building, rather than reading bin/, never reports a
// stale binary.
func buildSizes(ctx context.Context, root string) ([]binarySize, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "functions", "*", "main.go"))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "patio-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var out []binarySize
	for _, mainGo := range dirs {
		name := filepath.Base(filepath.Dir(mainGo))
		bin := filepath.Join(tmp, name, "bootstrap")
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-trimpath",
			"-ldflags", "-s -w", "-o", bin, "./functions/"+name)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return out, fmt.Errorf("build functions/%s: %w\n%s", name, err, msg)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return out, err
		}
		out = append(out, binarySize{function: "functions/" + name, bytes: fi.Size()})
	}
	return out, nil
}
