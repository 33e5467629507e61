package s3photos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// emptyPayload is the SHA-256 of an empty body, as S3's signed requests name it.
const emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// signer signs the bucket's requests; S3 takes paths as they are, not escaped a second time.
var signer = v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })

// delete deletes one object (an absent one is no error: S3 answers 204 either way), trying once
// more after a throttling answer, a server error or a failed connection.
func (b *Bucket) delete(ctx context.Context, key string) error {
	var err error
	for try := range 3 {
		if try > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(try) * 200 * time.Millisecond):
			}
		}
		var retry bool
		if retry, err = b.deleteOnce(ctx, key); !retry {
			return err
		}
	}
	return err
}

// deleteOnce sends one signed DELETE of key; retry says whether another try may succeed.
func (b *Bucket) deleteOnce(ctx context.Context, key string) (retry bool, err error) {
	resp, err := b.send(ctx, http.MethodDelete, key, nil)
	if err != nil {
		return ctx.Err() == nil, fmt.Errorf("delete %s: %w", key, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 300 || resp.StatusCode == http.StatusNotFound {
		_, _ = io.Copy(io.Discard, resp.Body)
		return false, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests,
		fmt.Errorf("delete %s: %s %s", key, resp.Status, strings.TrimSpace(string(body)))
}

// send sends one signed request without a body on key, with header's fields (signed too).
func (b *Bucket) send(ctx context.Context, method, key string, header http.Header) (*http.Response, error) {
	if b.creds == nil {
		return nil, fmt.Errorf("%s %s: no credentials to sign it", method, key)
	}
	creds, err := b.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.base+"/"+escapeKey(key), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("X-Amz-Content-Sha256", emptyPayload)
	if err := signer.SignHTTP(ctx, creds, req, emptyPayload, "s3", b.region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign %s %s: %w", method, key, err)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, key, err)
	}
	return resp, nil
}

// escapeKey escapes each segment of an object key for a request's path, keeping its slashes.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = awsEscape(s)
	}
	return strings.Join(segs, "/")
}

// awsEscape escapes s as SigV4 does: every byte but the unreserved ones (A-Z a-z 0-9 - _ . ~).
func awsEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
