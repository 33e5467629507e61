// Package s3objects is the photos' bucket as the image function reads and writes it (originals
// read, variants written, refused originals removed), through the S3 client. Apart from package
// s3photos so that the API and the console, which only sign upload targets and removals, do not
// link the S3 client.
package s3objects

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/s3photos"
)

// Objects are the photos' bytes as the image function reads and writes them, through the S3
// client (only the image function links it).
type Objects struct {
	client *s3.Client
	bucket string
	public string
}

// URLs are the public addresses of a photo's variants, under the bucket's public URL.
func (o *Objects) URLs(photoID string) patio.PhotoURLs { return s3photos.URLs(o.public, photoID) }

// New returns the objects of the bucket named name, whose variants are public under
// publicURL. An endpoint set in the environment
// (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, through cfg) is addressed path-style, as moto
// expects.
func New(cfg aws.Config, name, publicURL string) *Objects {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = o.BaseEndpoint != nil
		// Variants are written and read whole here; a response without a checksum (moto's) is
		// not worth a log line each.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
	return &Objects{client: client, bucket: name, public: publicURL}
}

// ReadOriginal returns the photo's original; tooLarge, without reading it, when it has more than
// limit bytes.
func (o *Objects) ReadOriginal(ctx context.Context, ref patio.PhotoRef, limit int64) ([]byte, bool, error) {
	key := s3photos.OriginalKey(ref)
	out, err := o.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &o.bucket, Key: &key})
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
func (o *Objects) WriteVariant(ctx context.Context, photoID string, size int, jpeg []byte) error {
	_, err := o.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &o.bucket, Key: aws.String(s3photos.VariantKey(photoID, size)),
		Body: bytes.NewReader(jpeg), ContentType: aws.String("image/jpeg"),
		CacheControl: aws.String("public, max-age=31536000, immutable")})
	if err != nil {
		return fmt.Errorf("s3photos: write %s: %w", s3photos.VariantKey(photoID, size), err)
	}
	return nil
}

// RemoveOriginal deletes an original the image function refused, so nothing of it stays current.
func (o *Objects) RemoveOriginal(ctx context.Context, ref patio.PhotoRef) error {
	key := s3photos.OriginalKey(ref)
	if _, err := o.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &o.bucket, Key: &key}); err != nil {
		return fmt.Errorf("s3photos: remove %s: %w", key, err)
	}
	return nil
}
