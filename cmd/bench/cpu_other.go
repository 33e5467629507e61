//go:build !unix

package main

import "time"

// processCPU returns 0: CPU time per call is only measured on Unix systems.
func processCPU() time.Duration { return 0 }
