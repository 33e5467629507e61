package main

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/patio-dev/patio/dev/testenv"
)

// TestWithAPI runs a command against a fresh in-memory stack: the command finds the API at
// PATIO_API_URL, the key PATIO_API_KEY works there, and with-api exits with the command's status.
func TestWithAPI(t *testing.T) {
	testenv.AWSConfig(t) // the engines are installed (skipped without them, failed under CI=true)
	t.Setenv("PATIO_WITH_API_HELPER", "1")
	got := run([]string{"with-api", "--", os.Args[0], "-test.run=^TestWithAPIHelper$"})
	if got != 3 {
		t.Errorf("run(with-api -- <GET /api/v1/vehicles, exit 3 on 200>) = %d; want 3", got)
	}
}

// TestWithAPIHelper is the command of TestWithAPI, run by with-api in a process of its own: it
// exits 3 when GET /api/v1/vehicles answers 200 with the key it was given.
func TestWithAPIHelper(t *testing.T) {
	if os.Getenv("PATIO_WITH_API_HELPER") != "1" {
		t.Skip("the command that TestWithAPI runs")
	}
	req, err := http.NewRequest(http.MethodGet, os.Getenv("PATIO_API_URL")+"/api/v1/vehicles", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	req.Header.Set("Authorization", "Bearer "+os.Getenv("PATIO_API_KEY"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "GET /api/v1/vehicles = %d; want 200\n", res.StatusCode)
		os.Exit(1)
	}
	os.Exit(3)
}
