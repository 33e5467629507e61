package main

import (
	"os/exec"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want int
	}{
		{name: "success", argv: []string{"sh", "-c", "exit 0"}, want: 0},
		{name: "own status", argv: []string{"sh", "-c", "exit 3"}, want: 3},
		{name: "killed by SIGTERM", argv: []string{"sh", "-c", "kill -TERM $$"}, want: 128 + 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(exec.Command(tt.argv[0], tt.argv[1:]...).Run()); got != tt.want {
				t.Errorf("exitCode(%v) = %d; want %d", tt.argv, got, tt.want)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "unknown subcommand", args: []string{"serve-me"}},
		{name: "with-engines without a command", args: []string{"with-engines", "--"}},
		{name: "with-api without a command", args: []string{"with-api"}},
		{name: "unknown flag", args: []string{"-frsh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(tt.args); got != 2 {
				t.Errorf("run(%q) = %d; want 2", tt.args, got)
			}
		})
	}
}
