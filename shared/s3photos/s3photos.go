// Package s3photos is the S3 adapter of vehicles' photos: the bucket's layout (originals private
// under their team and vehicle, variants public under the photo's id), presigned POST upload
// targets and removal for the API and the console (Bucket, which signs its few requests itself so
// that those functions do not link the S3 client), and the layout the image function's reads and writes use
// (package s3objects). Bucket implements patio.PhotoBucket.
package s3photos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/awsjson"
	"github.com/patio-dev/patio/shared/patio"
)

// Bucket is the photos' bucket as the API and the console use it: upload targets, removal, the
// variants' public addresses.
type Bucket struct {
	bucket string
	creds  aws.CredentialsProvider
	region string
	http   aws.HTTPClient
	// base is the bucket's address: its virtual-hosted address on AWS, its path-style address
	// under an endpoint set in the environment (the local stack's moto).
	base string
	// post is where upload forms are sent.
	post string
	// public is where the variants are served (PHOTOS_URL).
	public string
}

// URLs are the public addresses of a photo's variants, under the bucket's public URL.
func (b *Bucket) URLs(photoID string) patio.PhotoURLs { return URLs(b.public, photoID) }

// New returns the bucket named name, whose variants are public under publicURL (the
// distribution's address; "" for a bucket only the API uses). An S3 endpoint set in the
// environment (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, through cfg) is addressed path-style, as
// moto expects.
func New(cfg aws.Config, name, publicURL string) *Bucket {
	b := &Bucket{bucket: name, creds: cfg.Credentials, region: cfg.Region, http: cfg.HTTPClient, public: publicURL}
	if b.http == nil {
		b.http = http.DefaultClient
	}
	if ep, ok := awsjson.ConfiguredEndpoint(cfg, "S3"); ok {
		b.base = strings.TrimRight(ep, "/") + "/" + url.PathEscape(name)
		b.post = b.base
	} else {
		b.base = "https://" + name + ".s3." + cfg.Region + ".amazonaws.com"
		b.post = b.base + "/"
	}
	return b
}

// UploadTarget returns a presigned POST for the photo's original, valid until expires, refusing a
// body over patio.MaxPhotoBytes or a Content-Type other than image/*.
func (b *Bucket) UploadTarget(ctx context.Context, ref patio.PhotoRef, expires time.Time, back string) (patio.UploadTarget, error) {
	if b.creds == nil {
		return patio.UploadTarget{}, errors.New("s3photos: no credentials to sign an upload")
	}
	creds, err := b.creds.Retrieve(ctx)
	if err != nil {
		return patio.UploadTarget{}, fmt.Errorf("s3photos: credentials: %w", err)
	}
	fields, err := postPolicy(creds, b.region, b.bucket, OriginalKey(ref), patio.MaxPhotoBytes, expires, time.Now(), back)
	if err != nil {
		return patio.UploadTarget{}, fmt.Errorf("s3photos: policy of %s: %w", ref.PhotoID, err)
	}
	return patio.UploadTarget{URL: b.post, Fields: fields, MaxBytes: patio.MaxPhotoBytes, Expires: patio.NewTimestamp(expires)}, nil
}

// Remove deletes the photo's original and variants, side by side. The bucket is versioned: a
// deletion keeps the bytes as a noncurrent version, which the bucket's lifecycle rule removes 30
// days later.
func (b *Bucket) Remove(ctx context.Context, ref patio.PhotoRef) error {
	keys := []string{OriginalKey(ref)}
	for _, size := range Sizes {
		keys = append(keys, VariantKey(ref.PhotoID, size))
	}
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Go(func() { errs[i] = b.delete(ctx, key) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("s3photos: remove %s: %w", ref.PhotoID, err)
	}
	return nil
}
