package s3photos

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// UploadURL is where upload targets send the bytes: the address browsers post photos to.
func (b *Bucket) UploadURL() string { return b.post }

// Reprocess copies the photo's original onto itself, which the bucket announces as an object
// created, as it does an upload, so the image function processes it again; false when there is
// no original. S3 copies an object onto itself only with new metadata: the copy carries the time
// of the retry (x-amz-meta-retried-at) and keeps the original's content type.
func (b *Bucket) Reprocess(ctx context.Context, ref patio.PhotoRef) (bool, error) {
	key := OriginalKey(ref)
	head, err := b.send(ctx, http.MethodHead, key, nil)
	if err != nil {
		return false, fmt.Errorf("s3photos: %w", err)
	}
	_ = head.Body.Close()
	switch {
	case head.StatusCode == http.StatusNotFound:
		return false, nil
	case head.StatusCode >= 300:
		return false, fmt.Errorf("s3photos: head %s: %s", key, head.Status)
	}
	h := http.Header{}
	h.Set("X-Amz-Copy-Source", "/"+awsEscape(b.bucket)+"/"+escapeKey(key))
	h.Set("X-Amz-Metadata-Directive", "REPLACE")
	h.Set("X-Amz-Meta-Retried-At", time.Now().UTC().Format(time.RFC3339))
	if ct := head.Header.Get("Content-Type"); ct != "" {
		h.Set("Content-Type", ct)
	}
	resp, err := b.send(ctx, http.MethodPut, key, h)
	if err != nil {
		return false, fmt.Errorf("s3photos: copy %s onto itself: %w", key, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusNotFound: // removed since the HEAD
		return false, nil
	// A copy may fail after S3 answered 200: the error is then the body.
	case resp.StatusCode >= 300 || bytes.Contains(body, []byte("<Error>")):
		return false, fmt.Errorf("s3photos: copy %s onto itself: %s %s", key, resp.Status, strings.TrimSpace(string(body)))
	}
	return true, nil
}
