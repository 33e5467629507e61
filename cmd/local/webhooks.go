package main

import (
	"os"

	"github.com/patio-dev/patio/dev/localaws"
)

// localEnv adds the local-only webhook knobs to the stack's environment (and so to
// .data/stack.json, which the operators' tool reads): private targets are allowed, so a developer
// can point a webhook at a receiver on this machine. WEBHOOK_* variables and LOG_LEVEL already set
// in the environment (WEBHOOK_RETRY_SCHEDULE, WEBHOOK_CA_FILE, ...) are passed on as they are,
// over the template's defaults.
func localEnv(st *localaws.Stack) {
	st.Env["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "true"
	for _, k := range []string{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "WEBHOOK_RETRY_SCHEDULE", "WEBHOOK_TIMEOUT", "WEBHOOK_MAX_HOP",
		"WEBHOOK_SWEEP_AFTER", "WEBHOOK_CA_FILE", "LOG_LEVEL"} {
		if v, ok := os.LookupEnv(k); ok {
			st.Env[k] = v
		}
	}
}

// streamCheckpoints keeps how far the dispatcher got in each stream, so that a restart resumes there
// instead of handing every change of the last 24 hours over again.
const streamCheckpoints = ".data/stream-checkpoints.json"
