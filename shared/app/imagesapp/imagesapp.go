// Package imagesapp is the composition root of the image function: it builds the photos' bucket,
// the vehicles' store and the worker that turns an uploaded original into its variants, and hands
// the bucket's events to it. Apart from package app so that no other function links the image
// codecs and resizer.
package imagesapp

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/photos"
	"github.com/patio-dev/patio/shared/s3photos"
	"github.com/patio-dev/patio/shared/s3photos/s3objects"
)

// Handler handles the photos bucket's "Object Created" events, as EventBridge delivers them (the
// bucket sends its events to EventBridge; a rule passes those of originals to the function).
type Handler func(context.Context, events.CloudWatchEvent) error

// ObjectCreated is the detail of an S3 "Object Created" event on EventBridge (the members Patio
// reads).
type ObjectCreated struct {
	Bucket struct {
		Name string `json:"name"`
	} `json:"bucket"`
	Object struct {
		Key  string `json:"key"`
		Size int64  `json:"size"`
	} `json:"object"`
}

// Build returns the image function's handler on the configured bucket and vehicles table.
func Build(cfg aws.Config, c app.Config, logger *slog.Logger) (Handler, error) {
	if err := c.Require(app.ImagesFunction); err != nil {
		return nil, err
	}
	store := dynamostore.New(cfg, c.Tables)
	w := photos.Worker{Bucket: s3objects.New(cfg, c.PhotosBucket, c.PhotosURL),
		Photos: patio.NewPhotos(patio.NewVehicles(store.Vehicles()), s3photos.New(cfg, c.PhotosBucket, c.PhotosURL)), Log: logger}
	return NewHandler(w, logger), nil
}

// Lambda builds the image function's handler from the Lambda environment (app.LambdaBuild).
func Lambda(ctx context.Context, logger *slog.Logger) (Handler, error) {
	return app.LambdaBuild(ctx, logger, Build, app.ImagesFunction)
}

// NewHandler returns the handler of a worker: it processes the event's original. A key that names
// no original is logged and skipped; a failure (reading, writing, recording; never a refused
// image, which is a result) is logged and returned, so that Lambda invokes the function with the
// event again (an asynchronous invocation's retries), to the same result.
func NewHandler(w photos.Worker, logger *slog.Logger) Handler {
	return func(ctx context.Context, ev events.CloudWatchEvent) error {
		var d ObjectCreated
		if err := json.Unmarshal(ev.Detail, &d); err != nil {
			logger.WarnContext(ctx, "not an S3 object event", slog.String("event_id", ev.ID))
			return nil
		}
		ref, ok := s3photos.RefOf(d.Object.Key)
		if !ok {
			logger.WarnContext(ctx, "not a photo's original", slog.String("key", d.Object.Key))
			return nil
		}
		if err := w.Handle(ctx, ref); err != nil {
			logger.ErrorContext(ctx, "photo not processed", slog.String("team_id", ref.TeamID),
				slog.String("photo_id", ref.PhotoID), slog.String("error", err.Error()))
			return err
		}
		return nil
	}
}
