// Package s3photos is the S3 adapter of vehicles' photos: the bucket's layout (originals private
// under their team and vehicle, variants public under the photo's id), presigned POST upload
// targets, removal, and the image function's reads and writes. It implements patio.PhotoBucket.
package s3photos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/patio-dev/patio/shared/patio"
)

// Bucket is the photos' bucket.
type Bucket struct {
	client *s3.Client
	bucket string
	creds  aws.CredentialsProvider
	region string
	// post is where upload forms are sent: the bucket's virtual-hosted address on AWS, its
	// path-style address under an endpoint set in the environment (the local stack's moto).
	post string
	// public is where the variants are served (PHOTOS_URL).
	public string
}

// UploadURL is where upload targets send the bytes: the address browsers post photos to.
func (b *Bucket) UploadURL() string { return b.post }

// URLs are the public addresses of a photo's variants, under the bucket's public URL.
func (b *Bucket) URLs(photoID string) patio.PhotoURLs { return URLs(b.public, photoID) }

// New returns the bucket named name, whose variants are public under publicURL (the
// distribution's address; "" for a bucket only the API uses). An endpoint set in the environment (AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL, through cfg) is addressed path-style, as moto expects.
func New(cfg aws.Config, name, publicURL string) *Bucket {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = o.BaseEndpoint != nil
		// Variants are written and read whole by this adapter; a response without a checksum
		// (moto's) is not worth a log line each.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
	post := "https://" + name + ".s3." + cfg.Region + ".amazonaws.com/"
	if ep := client.Options().BaseEndpoint; ep != nil {
		post = strings.TrimRight(*ep, "/") + "/" + url.PathEscape(name)
	}
	return &Bucket{client: client, bucket: name, creds: cfg.Credentials, region: cfg.Region, post: post, public: publicURL}
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

// Remove deletes the photo's original and variants. The bucket is versioned: a deletion keeps
// the bytes as a noncurrent version, which the bucket's lifecycle rule removes 30 days later.
func (b *Bucket) Remove(ctx context.Context, ref patio.PhotoRef) error {
	objects := []types.ObjectIdentifier{{Key: aws.String(OriginalKey(ref))}}
	for _, size := range Sizes {
		objects = append(objects, types.ObjectIdentifier{Key: aws.String(VariantKey(ref.PhotoID, size))})
	}
	out, err := b.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &b.bucket,
		Delete: &types.Delete{Objects: objects, Quiet: aws.Bool(true)}})
	if err != nil {
		return fmt.Errorf("s3photos: remove %s: %w", ref.PhotoID, err)
	}
	if len(out.Errors) > 0 {
		return fmt.Errorf("s3photos: remove %s: %s", ref.PhotoID, aws.ToString(out.Errors[0].Message))
	}
	return nil
}

// Reprocess copies the photo's original onto itself, which the bucket announces as an object
// created like an upload, so the image function processes it again; false when there is no
// original. S3 copies an object onto itself only with new metadata: the copy carries the time of
// the retry, and keeps the original's content type.
func (b *Bucket) Reprocess(ctx context.Context, ref patio.PhotoRef) (bool, error) {
	key := OriginalKey(ref)
	head, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &key})
	if missing(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("s3photos: read %s: %w", key, err)
	}
	_, err = b.client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &b.bucket, Key: &key,
		CopySource: aws.String(url.PathEscape(b.bucket) + "/" + key), ContentType: head.ContentType,
		MetadataDirective: types.MetadataDirectiveReplace,
		Metadata:          map[string]string{"retried-at": time.Now().UTC().Format(time.RFC3339)}})
	if missing(err) { // removed between the two calls
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("s3photos: copy %s onto itself: %w", key, err)
	}
	return true, nil
}

// missing reports whether err is S3's answer about an object that does not exist.
func missing(err error) bool {
	var notFound *types.NotFound
	var noSuchKey *types.NoSuchKey
	return errors.As(err, &notFound) || errors.As(err, &noSuchKey)
}

// ReadOriginal returns the photo's original; tooLarge, without reading it, when it has more than
// limit bytes.
func (b *Bucket) ReadOriginal(ctx context.Context, ref patio.PhotoRef, limit int64) ([]byte, bool, error) {
	key := OriginalKey(ref)
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return nil, false, fmt.Errorf("s3photos: read %s: %w", key, err)
	}
	defer out.Body.Close()
	if aws.ToInt64(out.ContentLength) > limit {
		return nil, true, nil
	}
	data, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("s3photos: read %s: %w", key, err)
	}
	return data, int64(len(data)) > limit, nil
}

// WriteVariant stores a photo's variant of size: a JPEG, cacheable for a year (its URL never
// names other bytes).
func (b *Bucket) WriteVariant(ctx context.Context, photoID string, size int, jpeg []byte) error {
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.bucket, Key: aws.String(VariantKey(photoID, size)),
		Body: bytes.NewReader(jpeg), ContentType: aws.String("image/jpeg"),
		CacheControl: aws.String("public, max-age=31536000, immutable")})
	if err != nil {
		return fmt.Errorf("s3photos: write %s: %w", VariantKey(photoID, size), err)
	}
	return nil
}

// RemoveOriginal deletes an original the image function refused, so nothing of it stays current.
func (b *Bucket) RemoveOriginal(ctx context.Context, ref patio.PhotoRef) error {
	key := OriginalKey(ref)
	if _, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &key}); err != nil {
		return fmt.Errorf("s3photos: remove %s: %w", key, err)
	}
	return nil
}
