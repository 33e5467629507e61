package patio

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Photo statuses: a photo is processing from the moment its upload target is issued until the
// image function has read its bytes; then it is ready (its variants written) or failed (ReasonCode
// says why, and Reason in words an integrator can show).
const (
	PhotoProcessing = "processing"
	PhotoReady      = "ready"
	PhotoFailed     = "failed"
)

// PhotoFailure is why the image function refused a photo's bytes: a code that stays the same
// when the words of the reason change, so that a client (the console, in its reader's language)
// can act on it or say it its own way.
type PhotoFailure string

// The refusals of a photo's bytes.
const (
	// PhotoNotAnImage: the bytes are not a JPEG, PNG or WebP, whatever type was declared.
	PhotoNotAnImage PhotoFailure = "not_an_image"
	// PhotoTooLarge: the file has more than MaxPhotoBytes.
	PhotoTooLarge PhotoFailure = "too_large"
	// PhotoTooManyPixels: the image's header declares more than MaxPhotoPixels.
	PhotoTooManyPixels PhotoFailure = "too_many_pixels"
	// PhotoUnreadable: the image's header or data is damaged or truncated.
	PhotoUnreadable PhotoFailure = "unreadable"
)

// PhotoFailures are every refusal's code.
var PhotoFailures = []PhotoFailure{PhotoNotAnImage, PhotoTooLarge, PhotoTooManyPixels, PhotoUnreadable}

// Photo limits: how many photos a vehicle holds, and what an upload may be. The upload target
// enforces the size; the image function checks both again on the bytes themselves.
const (
	MaxPhotos      = 30
	MaxPhotoBytes  = 15 << 20   // 15 MiB
	MaxPhotoPixels = 40_000_000 // 40 megapixels
)

// PhotoUploadWindow is how long an upload target stays valid.
const PhotoUploadWindow = 15 * time.Minute

// Photo is one photo of a vehicle, as the API shows it inside the vehicle's representation. Width,
// Height and URLs are null until the photo is ready; Reason and ReasonCode are null unless it
// failed.
type Photo struct {
	ID         string        `json:"id"`
	Position   int           `json:"position"` // 1 is the cover; the vehicle's order, renumbered on every change
	Status     string        `json:"status"`
	Width      *int          `json:"width"`
	Height     *int          `json:"height"`
	Reason     *string       `json:"reason"`
	ReasonCode *PhotoFailure `json:"reason_code"`
	URLs       *PhotoURLs    `json:"urls"`
}

// PhotoList is a vehicle's photos in their order. Its JSON form is an array, [] for none: every
// representation carries every field.
type PhotoList []Photo

// MarshalJSON writes the photos as an array, [] for none.
func (l PhotoList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Photo(l))
}

// PhotoURLs are a ready photo's public addresses, one per variant (320, 1024 and 1920 pixels on
// the long side, JPEG). A photo's URLs never change: a new photo is a new URL, so they may be
// cached for a year.
type PhotoURLs struct {
	Thumb  string `json:"thumb"`
	Medium string `json:"medium"`
	Large  string `json:"large"`
}

// PhotoRef names one photo of a team's vehicle: what the bucket keys its bytes by.
type PhotoRef struct {
	TeamID, VehicleID, PhotoID string
}

// UploadTarget is where a client sends a photo's bytes: an HTML form POST (multipart/form-data) to
// URL with Fields first and the file last, as a presigned S3 POST expects. The policy the fields
// carry refuses a body larger than MaxBytes or a Content-Type that is not image/*, and expires at
// Expires.
type UploadTarget struct {
	URL      string            `json:"url"`
	Fields   map[string]string `json:"fields"`
	MaxBytes int               `json:"max_bytes"`
	Expires  Timestamp         `json:"expires_at"`
}

// PhotoBucket is where photos' bytes live. The domain never touches bytes: it asks for an upload
// target and for a photo's bytes to be removed.
type PhotoBucket interface {
	// UploadTarget returns a presigned POST for the photo's original, valid until expires. With a
	// back address, the storage sends the browser there (303) once the bytes are in: an HTML
	// form's upload returns to the page it came from.
	UploadTarget(ctx context.Context, ref PhotoRef, expires time.Time, back string) (UploadTarget, error)
	// Remove deletes the photo's original and variants. The bucket keeps removed bytes for a
	// while (its lifecycle rule removes them for good), so a removal is soft.
	Remove(ctx context.Context, ref PhotoRef) error
	// Reprocess has the photo's stored original processed again, as a new upload of the same
	// bytes would be; false when the bucket holds no original of it (never sent, or refused and
	// removed).
	Reprocess(ctx context.Context, ref PhotoRef) (bool, error)
}

// PhotoResult is what the image function found in a photo's bytes: the original's size (after its
// orientation) and its variants' URLs when they were written (Failure ""), or why it refused them
// (Failure, and Reason in words).
type PhotoResult struct {
	Width, Height int
	URLs          PhotoURLs
	Failure       PhotoFailure
	Reason        string
}

// Photo returns the vehicle's photo of id, or KindNotFound.
func (v Vehicle) Photo(id string) (Photo, error) {
	i := slices.IndexFunc(v.Photos, func(p Photo) bool { return p.ID == id })
	if i < 0 {
		return Photo{}, errPhotoNotFound
	}
	return v.Photos[i], nil
}

var errPhotoNotFound = NotFoundf("photo not found")

// withPhotos returns the vehicle with photos as its photos, renumbered from 1 (nil for none, as
// the store reads a vehicle without photos). It copies the slice, so the vehicle read stays as it
// was (the use cases compare the two).
func (v Vehicle) withPhotos(photos []Photo) Vehicle {
	if len(photos) == 0 {
		v.Photos = nil
		return v
	}
	out := make(PhotoList, len(photos))
	for i, p := range photos {
		p.Position = i + 1
		out[i] = p
	}
	v.Photos = out
	return v
}

// AddPhoto returns the vehicle with a new photo of id, processing, last in its order. A vehicle
// holds at most MaxPhotos (KindConflict beyond) and an archived vehicle takes none.
func (v Vehicle) AddPhoto(id string) (Vehicle, error) {
	if v.Status == VehicleArchived {
		return v, Conflictf("an archived vehicle takes no photos; restore it first")
	}
	if len(v.Photos) >= MaxPhotos {
		return v, Conflictf("a vehicle holds at most %d photos; delete one first", MaxPhotos)
	}
	return v.withPhotos(append(slices.Clone(v.Photos), Photo{ID: id, Status: PhotoProcessing})), nil
}

// ReorderPhotos returns the vehicle with its photos in the order of ids, which must name each of
// its photos once (KindInvalid for a list with a repeated or malformed id; KindConflict for one
// that does not match the vehicle's photos).
func (v Vehicle) ReorderPhotos(ids []string) (Vehicle, error) {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return v, Errorf(KindInvalid, "%s is given twice", "order")
		}
		seen[id] = true
	}
	if len(ids) != len(v.Photos) {
		return v, Conflictf("order must name each of the vehicle's %d photos once", len(v.Photos))
	}
	photos := make([]Photo, 0, len(ids))
	for _, id := range ids {
		p, err := v.Photo(id)
		if err != nil {
			return v, Conflictf("order must name each of the vehicle's %d photos once", len(v.Photos))
		}
		photos = append(photos, p)
	}
	return v.withPhotos(photos), nil
}

// RemovePhoto returns the vehicle without its photo of id (KindNotFound when it has none).
func (v Vehicle) RemovePhoto(id string) (Vehicle, error) {
	if _, err := v.Photo(id); err != nil {
		return v, err
	}
	return v.withPhotos(slices.DeleteFunc(slices.Clone(v.Photos), func(p Photo) bool { return p.ID == id })), nil
}

// RetryPhoto returns the vehicle with its photo of id processing again: a failed photo loses its
// reason, one still processing is unchanged. A ready photo has nothing to retry and an archived
// vehicle takes no photos (KindConflict); KindNotFound for an unknown photo.
func (v Vehicle) RetryPhoto(id string) (Vehicle, error) {
	p, err := v.Photo(id)
	switch {
	case err != nil:
		return v, err
	case v.Status == VehicleArchived:
		return v, Conflictf("an archived vehicle takes no photos; restore it first")
	case p.Status == PhotoReady:
		return v, Conflictf("photo %s is ready; only a failed or processing photo may be retried", id)
	case p.Status == PhotoProcessing:
		return v, nil
	}
	photos := slices.Clone(v.Photos)
	for i := range photos {
		if photos[i].ID == id {
			photos[i].Status, photos[i].Reason, photos[i].ReasonCode = PhotoProcessing, nil, nil
		}
	}
	return v.withPhotos(photos), nil
}

// PhotoProcessed returns the vehicle with the image function's result on its photo of id: ready
// with its size and URLs, or failed with the reason's code and words. A photo removed meanwhile
// is KindNotFound (the result is dropped).
func (v Vehicle) PhotoProcessed(id string, res PhotoResult) (Vehicle, error) {
	if _, err := v.Photo(id); err != nil {
		return v, err
	}
	photos := slices.Clone(v.Photos)
	for i, p := range photos {
		if p.ID != id {
			continue
		}
		if res.Failure != "" {
			p.Status, p.Width, p.Height, p.URLs = PhotoFailed, nil, nil, nil
			p.Reason, p.ReasonCode = ptr(res.Reason), ptr(res.Failure)
		} else {
			urls := res.URLs
			p.Status, p.Width, p.Height, p.URLs = PhotoReady, ptr(res.Width), ptr(res.Height), &urls
			p.Reason, p.ReasonCode = nil, nil
		}
		photos[i] = p
	}
	return v.withPhotos(photos), nil
}

// Photos is the photo use cases: photos are part of their vehicle's record, so each change is a
// vehicle update (a new revision, vehicle.updated with previous_attributes.photos).
type Photos struct {
	vehicles Vehicles
	bucket   PhotoBucket
}

// NewPhotos returns the photo use cases on the vehicle use cases and the photos' bucket.
func NewPhotos(vehicles Vehicles, bucket PhotoBucket) Photos {
	return Photos{vehicles: vehicles, bucket: bucket}
}

// Add adds a processing photo to the team's vehicle and returns it with the target its bytes go
// to. KindNotFound for an unknown vehicle; KindConflict for a vehicle full or archived.
func (s Photos) Add(ctx context.Context, teamID, vehicleID string, pre Precondition) (Photo, UploadTarget, error) {
	photoID, now := NewID()
	v, err := s.vehicles.Revise(ctx, teamID, vehicleID, pre, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		return cur.AddPhoto(photoID)
	})
	if err != nil {
		return Photo{}, UploadTarget{}, err
	}
	p, err := v.Photo(photoID)
	if err != nil {
		return Photo{}, UploadTarget{}, Internal(err)
	}
	target, err := s.bucket.UploadTarget(ctx, PhotoRef{teamID, v.ID, photoID}, now.Add(PhotoUploadWindow), "")
	if err != nil {
		return Photo{}, UploadTarget{}, Internal(err)
	}
	return p, target, nil
}

// AddSlot adds a processing photo to the team's vehicle, its bytes to come (see UploadTargetOf).
func (s Photos) AddSlot(ctx context.Context, teamID, vehicleID string) (Photo, error) {
	photoID, _ := NewID()
	v, err := s.vehicles.Revise(ctx, teamID, vehicleID, Precondition{}, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		return cur.AddPhoto(photoID)
	})
	if err != nil {
		return Photo{}, err
	}
	return v.Photo(photoID)
}

// PhotoUpload is a photo added, waiting for its bytes, and the target they go to.
type PhotoUpload struct {
	Photo  Photo
	Target UploadTarget
}

// AddUploads adds n processing photos to the team's vehicle, last in its order, in one change of
// the vehicle, each with the target its bytes go to: several files sent at once. All fit or none
// is added (AddPhoto's rules: KindConflict for a vehicle archived or without room for them all);
// KindInvalid for n below 1; KindNotFound for an unknown vehicle.
func (s Photos) AddUploads(ctx context.Context, teamID, vehicleID string, n int) ([]PhotoUpload, error) {
	switch {
	case n < 1:
		return nil, Errorf(KindInvalid, "%s must be between %d and %d", "count", 1, MaxPhotos)
	case n > MaxPhotos:
		return nil, Conflictf("a vehicle holds at most %d photos; delete one first", MaxPhotos)
	}
	ids := make([]string, n)
	var now time.Time
	for i := range ids {
		ids[i], now = NewID()
	}
	v, err := s.vehicles.Revise(ctx, teamID, vehicleID, Precondition{}, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		var err error
		for _, id := range ids {
			if cur, err = cur.AddPhoto(id); err != nil {
				return cur, err
			}
		}
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]PhotoUpload, n)
	for i, id := range ids {
		if out[i].Photo, err = v.Photo(id); err != nil {
			return nil, Internal(err)
		}
		out[i].Target, err = s.bucket.UploadTarget(ctx, PhotoRef{teamID, v.ID, id}, now.Add(PhotoUploadWindow), "")
		if err != nil {
			return nil, Internal(err)
		}
	}
	return out, nil
}

// UploadTargetOf returns the vehicle read, its photo still waiting for its bytes and a new upload
// target of them, sending the browser to back once they are in (an HTML form's upload).
// KindNotFound for an unknown vehicle or photo; KindConflict for a photo already processed.
func (s Photos) UploadTargetOf(ctx context.Context, teamID, vehicleID, photoID, back string, now time.Time) (Vehicle, Photo, UploadTarget, error) {
	v, err := s.vehicles.Get(ctx, teamID, vehicleID)
	if err != nil {
		return v, Photo{}, UploadTarget{}, err
	}
	p, err := v.Photo(photoID)
	if err != nil {
		return v, Photo{}, UploadTarget{}, err
	}
	if p.Status != PhotoProcessing {
		return v, p, UploadTarget{}, Conflictf("photo %s is %s; only a photo waiting for its bytes takes them", photoID, p.Status)
	}
	target, err := s.bucket.UploadTarget(ctx, PhotoRef{teamID, v.ID, photoID}, now.Add(PhotoUploadWindow), back)
	if err != nil {
		return v, p, UploadTarget{}, Internal(err)
	}
	return v, p, target, nil
}

// Retry has the photo processed again (RetryPhoto's rules: a failed photo becomes processing).
// When the bucket still holds its original (the image function stopped on a failure of its own),
// the image function runs on it again and target is nil; otherwise (a refused original is
// removed; bytes never sent, or sent after their target expired) target is a new upload target
// for the bytes, valid for PhotoUploadWindow. The photo turns processing before the bytes are
// processed again, so the result recorded is the new one.
func (s Photos) Retry(ctx context.Context, teamID, vehicleID, photoID string, pre Precondition) (Photo, *UploadTarget, error) {
	var at time.Time
	v, err := s.vehicles.Revise(ctx, teamID, vehicleID, pre, func(cur Vehicle, now time.Time) (Vehicle, error) {
		at = now
		return cur.RetryPhoto(photoID)
	})
	if err != nil {
		return Photo{}, nil, err
	}
	p, err := v.Photo(photoID)
	if err != nil {
		return Photo{}, nil, Internal(err)
	}
	ref := PhotoRef{teamID, v.ID, photoID}
	stored, err := s.bucket.Reprocess(ctx, ref)
	if err != nil {
		return Photo{}, nil, Internal(err)
	}
	if stored {
		return p, nil, nil
	}
	target, err := s.bucket.UploadTarget(ctx, ref, at.Add(PhotoUploadWindow), "")
	if err != nil {
		return Photo{}, nil, Internal(err)
	}
	return p, &target, nil
}

// Reorder puts the vehicle's photos in the order of ids (ReorderPhotos' rules).
func (s Photos) Reorder(ctx context.Context, teamID, vehicleID string, ids []string, pre Precondition) (Vehicle, error) {
	return s.vehicles.Revise(ctx, teamID, vehicleID, pre, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		return cur.ReorderPhotos(ids)
	})
}

// Remove deletes a photo: hidden from the vehicle at once, its bytes removed from the bucket (kept
// there for a while by the bucket's lifecycle, see PhotoBucket.Remove). The bytes go first, so a
// failure leaves the photo listed and the request may be repeated.
func (s Photos) Remove(ctx context.Context, teamID, vehicleID, photoID string, pre Precondition) (Vehicle, error) {
	v, err := s.vehicles.Get(ctx, teamID, vehicleID)
	if err != nil {
		return v, err
	}
	if _, err := v.Photo(photoID); err != nil {
		return v, err
	}
	if err := s.bucket.Remove(ctx, PhotoRef{teamID, v.ID, photoID}); err != nil {
		return v, Internal(err)
	}
	return s.vehicles.Revise(ctx, teamID, vehicleID, pre, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		return cur.RemovePhoto(photoID)
	})
}

// Processed records the image function's result on the photo (PhotoProcessed's rules). A photo
// whose result is already recorded changes nothing.
func (s Photos) Processed(ctx context.Context, ref PhotoRef, res PhotoResult) (Vehicle, error) {
	return s.vehicles.Revise(ctx, ref.TeamID, ref.VehicleID, Precondition{}, func(cur Vehicle, _ time.Time) (Vehicle, error) {
		return cur.PhotoProcessed(ref.PhotoID, res)
	})
}

// Revise is the one update path (read, change, conditional write; Changed decides whether
// anything is written) with the change given as a function of the record read: the use cases that
// change part of a record (a vehicle's photos) go through it.
func (s Service[T, In, Q]) Revise(ctx context.Context, teamID, id string, pre Precondition,
	change func(cur T, now time.Time) (T, error)) (T, error) {
	return s.edit(ctx, teamID, id, pre, "update", func(_ context.Context, cur T, now time.Time) (Write[T], error) {
		next, err := change(cur, now)
		return Write[T]{Record: next}, err
	})
}
