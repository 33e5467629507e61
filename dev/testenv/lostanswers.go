package testenv

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// LostAnswers is an HTTP client whose answers to the first N requests of an operation are lost
// after DynamoDB has carried them out: the request was applied, the caller sees a broken
// connection, which the SDK otherwise treats as worth sending again.
type LostAnswers struct {
	Next      aws.HTTPClient
	Operation string // the X-Amz-Target's operation, e.g. "UpdateItem"
	Mu        sync.Mutex
	N         int // how many answers are still to be lost
}

// Do sends req through Next, and loses the answer when req is one of the first N of Operation.
func (c *LostAnswers) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.Next.Do(req)
	if err != nil || !strings.HasSuffix(req.Header.Get("X-Amz-Target"), "."+c.Operation) {
		return resp, err
	}
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.N == 0 {
		return resp, err
	}
	c.N--
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}
