package runtimeapi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// DeployFlags are the go build flags of the deployed functions (the Makefile's LAMBDA_FLAGS).
var DeployFlags = []string{"-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w"}

// Build builds functions/<name> of the module at root as Lambda deploys it (CGO off, DeployFlags),
// for Linux on this machine's architecture so that it can run here, into dir/<name>/bootstrap, and
// returns that path.
func Build(ctx context.Context, root, name, dir string) (string, error) {
	return BuildPackage(ctx, root, "./functions/"+name, filepath.Join(dir, name))
}

// BuildPackage builds the main package pkg (a path relative to root, "./dev/runtimeapi/minimal") as
// Build does, into dir/bootstrap, and returns that path.
func BuildPackage(ctx context.Context, root, pkg, dir string) (string, error) {
	bin := filepath.Join(dir, "bootstrap")
	name := pkg
	args := append(append([]string{"build"}, DeployFlags...), "-o", bin, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("runtimeapi: build %s: %w\n%s", name, err, out)
	}
	return bin, nil
}

// LambdaEnv returns env without the variables a Lambda execution environment never has and that
// would change a function's behaviour here: the local-only knobs the functions refuse
// (WEBHOOK_ALLOW_PRIVATE_TARGETS, WEBHOOK_CA_FILE) and Go's own build and test settings.
func LambdaEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_CA_FILE", "GOFLAGS", "GORACE", "GOCOVERDIR":
			continue
		}
		out = append(out, kv)
	}
	return out
}
