package runtimeapi_test

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/runtimeapi"
)

// TestProtocol plays the function's side of the Runtime API by hand (the process is a sleep that
// only holds the environment): next carries the payload and Lambda's headers, a response and an
// error end their invocations, an unknown request id is refused.
func TestProtocol(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	f, err := runtimeapi.Start(sleep, runtimeapi.Options{Name: "probe", Timeout: 3 * time.Second, Args: []string{"30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	api := "http://" + f.Addr() + "/2018-06-01/runtime/"

	type answer struct {
		r   runtimeapi.Result
		err error
	}
	invoke := func(payload string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := f.Invoke(context.Background(), []byte(payload))
			ch <- answer{r, err}
		}()
		return ch
	}
	next := func(t *testing.T) (string, http.Header) {
		t.Helper()
		res, err := http.Get(api + "invocation/next")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return string(body), res.Header
	}
	post := func(t *testing.T, path, body string, header http.Header) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, api+path, strings.NewReader(body))
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	ch := invoke(`{"n":1}`)
	body, h := next(t)
	id := h.Get("Lambda-Runtime-Aws-Request-Id")
	deadline, _ := strconv.ParseInt(h.Get("Lambda-Runtime-Deadline-Ms"), 10, 64)
	left := time.Until(time.UnixMilli(deadline))
	if body != `{"n":1}` || id == "" || left <= 2*time.Second || left > 3*time.Second ||
		!strings.HasSuffix(h.Get("Lambda-Runtime-Invoked-Function-Arn"), ":function:probe") ||
		!strings.Contains(h.Get("Lambda-Runtime-Trace-Id"), "Root=1-") {
		t.Fatalf("next = %q, headers %v; want the payload, a request id, a deadline 3 s away, the ARN and a trace", body, h)
	}
	if got := post(t, "invocation/"+id+"/response", `{"ok":true}`, nil); got != http.StatusAccepted {
		t.Errorf("response: status %d; want 202", got)
	}
	if a := <-ch; a.err != nil || string(a.r.Payload) != `{"ok":true}` || a.r.RequestID != id {
		t.Errorf("Invoke = %+v, %v; want the posted response", a.r, a.err)
	}

	ch = invoke(`{"n":2}`)
	_, h = next(t)
	id = h.Get("Lambda-Runtime-Aws-Request-Id")
	post(t, "invocation/"+id+"/error", `{"errorMessage":"Unauthorized","errorType":"errorString"}`,
		http.Header{"Lambda-Runtime-Function-Error-Type": {"errorString"}})
	if a := <-ch; a.err != nil || a.r.Error != "Unauthorized" || a.r.ErrorType != "errorString" || a.r.Err() == nil {
		t.Errorf("Invoke = %+v, %v; want the posted error", a.r, a.err)
	}
	if got := post(t, "invocation/unknown/response", `{}`, nil); got != http.StatusBadRequest {
		t.Errorf("response to an unknown id: status %d; want 400", got)
	}
	if got := post(t, "init/error", `{"errorMessage":"boom","errorType":"Runtime.ExitError"}`, nil); got != http.StatusAccepted || !strings.Contains(f.InitError(), "boom") {
		t.Errorf("init error: status %d, InitError %q", got, f.InitError())
	}
}
