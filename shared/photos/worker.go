package photos

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/patio-dev/patio/shared/patio"
)

// Bucket is what the worker reads originals from and writes variants to (s3objects.Objects).
type Bucket interface {
	// ReadOriginal returns the photo's original; tooLarge when it has more than limit bytes (then
	// it is not read).
	ReadOriginal(ctx context.Context, ref patio.PhotoRef, limit int64) (data []byte, tooLarge bool, err error)
	// WriteVariant stores a variant of the photo (size is one of Sizes).
	WriteVariant(ctx context.Context, photoID string, size int, jpeg []byte) error
	// RemoveOriginal deletes a refused original, so nothing of it stays.
	RemoveOriginal(ctx context.Context, ref patio.PhotoRef) error
	// URLs are the public addresses of the photo's variants.
	URLs(photoID string) patio.PhotoURLs
}

// Recorder records a photo's result on its vehicle (patio.Photos).
type Recorder interface {
	Processed(ctx context.Context, ref patio.PhotoRef, res patio.PhotoResult) (patio.Vehicle, error)
}

// Worker processes uploaded originals.
type Worker struct {
	Bucket Bucket
	Photos Recorder
	Log    *slog.Logger
}

// Handle processes the original of ref: its variants written and the photo ready, or the
// original removed and the photo failed with the reason. A photo deleted meanwhile is left alone.
// An error is the worker's own (reading, writing, recording): the event may be handled again.
func (w Worker) Handle(ctx context.Context, ref patio.PhotoRef) error {
	data, tooLarge, err := w.Bucket.ReadOriginal(ctx, ref, patio.MaxPhotoBytes)
	if err != nil {
		return err
	}
	var v Variants
	if tooLarge {
		err = ErrTooLarge
	} else {
		v, err = Process(data)
	}
	if refusal, refused := IsRefusal(err); refused {
		if err := w.Bucket.RemoveOriginal(ctx, ref); err != nil {
			return err
		}
		w.Log.InfoContext(ctx, "photo refused", slog.String("team_id", ref.TeamID), slog.String("vehicle_id", ref.VehicleID),
			slog.String("photo_id", ref.PhotoID), slog.String("reason", string(refusal.Code)))
		return w.record(ctx, ref, patio.PhotoResult{Failure: refusal.Code, Reason: refusal.Reason})
	}
	if err != nil {
		return err
	}
	for i, size := range Sizes {
		if err := w.Bucket.WriteVariant(ctx, ref.PhotoID, size, v.JPEG[i]); err != nil {
			return err
		}
	}
	return w.record(ctx, ref, patio.PhotoResult{Width: v.Width, Height: v.Height, URLs: w.Bucket.URLs(ref.PhotoID)})
}

// record records the result; a photo (or vehicle) gone meanwhile needs nothing more.
func (w Worker) record(ctx context.Context, ref patio.PhotoRef, res patio.PhotoResult) error {
	_, err := w.Photos.Processed(ctx, ref, res)
	if patio.IsKind(err, patio.KindNotFound) {
		w.Log.InfoContext(ctx, "photo gone before its result", slog.String("team_id", ref.TeamID),
			slog.String("photo_id", ref.PhotoID))
		return nil
	}
	if err != nil {
		return fmt.Errorf("photos: record %s: %w", ref.PhotoID, err)
	}
	return nil
}
