// Package imagesapp is the composition root of the image function: it builds the photos' bucket,
// the vehicles' store and the worker that turns an uploaded original into its variants, and hands
// the bucket's events to it. Apart from package app so that no other function links the image
// codecs and resizer.
package imagesapp

import (
	"context"
	"errors"
	"log/slog"
	"net/url"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/photos"
	"github.com/patio-dev/patio/shared/s3photos"
)

// Handler handles the photos bucket's S3 events (objects created under s3photos.OriginalsPrefix).
type Handler func(context.Context, events.S3Event) error

// Build returns the image function's handler on the configured bucket and vehicles table.
func Build(cfg aws.Config, c app.Config, logger *slog.Logger) (Handler, error) {
	if err := c.Require(app.ImagesFunction); err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	bucket := s3photos.New(cfg, c.PhotosBucket, c.PhotosURL)
	w := photos.Worker{Bucket: bucket, Photos: patio.NewPhotos(patio.NewVehicles(store.Vehicles()), bucket), Log: logger}
	return NewHandler(w, logger), nil
}

// Lambda builds the image function's handler from the Lambda environment (app.LambdaBuild).
func Lambda(ctx context.Context, logger *slog.Logger) (Handler, error) {
	return app.LambdaBuild(ctx, logger, Build, app.ImagesFunction)
}

// NewHandler returns the handler of a worker: it processes each record's original. A key that names no original is logged and skipped;
// a record that fails (reading, writing, recording; never a refused image, which is a result) is
// logged, and the handler returns an error so that Lambda invokes it again with the event (an
// asynchronous invocation's retries): the records processed already are processed again to the
// same result.
func NewHandler(w photos.Worker, logger *slog.Logger) Handler {
	return func(ctx context.Context, ev events.S3Event) error {
		var errs []error
		for _, rec := range ev.Records {
			// S3 events carry keys URL-encoded (a space as +).
			key, err := url.QueryUnescape(rec.S3.Object.Key)
			ref, ok := s3photos.RefOf(key)
			if err != nil || !ok {
				logger.WarnContext(ctx, "not a photo's original", slog.String("key", rec.S3.Object.Key))
				continue
			}
			if err := w.Handle(ctx, ref); err != nil {
				logger.ErrorContext(ctx, "photo not processed", slog.String("team_id", ref.TeamID),
					slog.String("photo_id", ref.PhotoID), slog.String("error", err.Error()))
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}
