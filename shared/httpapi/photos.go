package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// PhotoService is the photo use cases of a team's vehicles, as the domain provides them
// (patio.Photos).
type PhotoService interface {
	Add(ctx context.Context, teamID, vehicleID string, pre patio.Precondition) (patio.Photo, patio.UploadTarget, error)
	Reorder(ctx context.Context, teamID, vehicleID string, ids []string, pre patio.Precondition) (patio.Vehicle, error)
	Remove(ctx context.Context, teamID, vehicleID, photoID string, pre patio.Precondition) (patio.Vehicle, error)
	Retry(ctx context.Context, teamID, vehicleID, photoID string, pre patio.Precondition) (patio.Photo, *patio.UploadTarget, error)
}

// photoAdded is the answer to POST /vehicles/{id}/photos: the new photo and where its bytes go.
type photoAdded struct {
	Photo  patio.Photo        `json:"photo"`
	Upload patio.UploadTarget `json:"upload"`
}

// photoRetried is the answer to POST /vehicles/{id}/photos/{photo_id}/retry: the photo, and where
// its bytes go when they must be sent again (nil when the stored original is processed again).
type photoRetried struct {
	Photo  patio.Photo         `json:"photo"`
	Upload *patio.UploadTarget `json:"upload"`
}

// photoRoute finds the operation of a photo path under /api/v1/vehicles/: rest is what follows
// the vehicle's id ("photos", "photos/<photo id>" or "photos/<photo id>/retry"). The operations
// run under the vehicles' scopes, on the vehicle's id.
func (a *api) photoRoute(r *http.Request, rest string) (op func(http.ResponseWriter, *http.Request, string, string) error, ok bool) {
	if a.photos == nil {
		return nil, false
	}
	sub, tail, hasPhoto := strings.Cut(rest, "/")
	photoID, action, hasAction := strings.Cut(tail, "/")
	onPhoto := func(op func(http.ResponseWriter, *http.Request, string, string, string) error) func(http.ResponseWriter, *http.Request, string, string) error {
		return func(w http.ResponseWriter, r *http.Request, teamID, vehicleID string) error {
			return op(w, r, teamID, vehicleID, photoID)
		}
	}
	switch {
	case sub != "photos" || hasPhoto && photoID == "" || hasAction && action != "retry":
		return nil, false
	case !hasPhoto && r.Method == http.MethodPost:
		return a.addPhoto, true
	case !hasPhoto && r.Method == http.MethodPut:
		return a.reorderPhotos, true
	case hasPhoto && !hasAction && r.Method == http.MethodDelete:
		return onPhoto(a.removePhoto), true
	case hasAction && r.Method == http.MethodPost:
		return onPhoto(a.retryPhoto), true
	}
	return nil, false
}

// addPhoto adds a photo: the body is empty or an empty object (nothing about the photo is known
// before its bytes are read).
func (a *api) addPhoto(w http.ResponseWriter, r *http.Request, teamID, vehicleID string) error {
	pre, err := ifMatch(r)
	if err != nil {
		return err
	}
	if err := emptyBody(r); err != nil {
		return err
	}
	photo, target, err := a.photos.Add(r.Context(), teamID, vehicleID, pre)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, photoAdded{Photo: photo, Upload: target})
	return nil
}

// allIDs reports whether every one of ids is a photo id (a UUID), putting each in its canonical
// form: a malformed one is the body's fault, answered before the vehicle is read.
func allIDs(ids []string) bool {
	for i, id := range ids {
		c, ok := patio.ParseID(id)
		if !ok {
			return false
		}
		ids[i] = c
	}
	return true
}

// reorderPhotos puts a vehicle's photos in the order of the body's order member, a list of every
// photo's id, and answers the vehicle.
func (a *api) reorderPhotos(w http.ResponseWriter, r *http.Request, teamID, vehicleID string) error {
	pre, err := ifMatch(r)
	if err != nil {
		return err
	}
	b, err := readBody(r)
	if err != nil {
		return err
	}
	var order []string
	given := false
	var p patio.Problems
	decodeMembers(&p, "", b, member{name: "order", decode: func(p *patio.Problems, raw json.RawMessage) {
		given = true
		if json.Unmarshal(raw, &order) != nil || order == nil || !allIDs(order) {
			p.Add(patio.InBody, "order", "order must be a list of photo ids")
		}
	}})
	if !given && !p.Has("order") {
		p.Add(patio.InBody, "order", "%s is required", "order")
	}
	if err := p.Err(); err != nil {
		return err
	}
	v, err := a.photos.Reorder(r.Context(), teamID, vehicleID, order, pre)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag(v.Revision))
	writeData(w, http.StatusOK, v)
	return nil
}

// removePhoto deletes one photo of a vehicle and answers the vehicle.
func (a *api) removePhoto(w http.ResponseWriter, r *http.Request, teamID, vehicleID, photoID string) error {
	pre, err := ifMatch(r)
	if err != nil {
		return err
	}
	v, err := a.photos.Remove(r.Context(), teamID, vehicleID, photoID, pre)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag(v.Revision))
	writeData(w, http.StatusOK, v)
	return nil
}

// retryPhoto has a failed (or stuck) photo processed again: the body is empty or an empty object.
// It answers the photo, processing, and its new upload target when the bytes must be sent again.
func (a *api) retryPhoto(w http.ResponseWriter, r *http.Request, teamID, vehicleID, photoID string) error {
	pre, err := ifMatch(r)
	if err != nil {
		return err
	}
	if err := emptyBody(r); err != nil {
		return err
	}
	photo, target, err := a.photos.Retry(r.Context(), teamID, vehicleID, photoID, pre)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, photoRetried{Photo: photo, Upload: target})
	return nil
}

// emptyBody refuses a body that is not empty or an empty object: the operation takes no member.
func emptyBody(r *http.Request) error {
	if r.ContentLength == 0 {
		return nil
	}
	b, err := readBody(r)
	if err != nil {
		return err
	}
	var p patio.Problems
	decodeMembers(&p, "", b)
	return p.Err()
}
