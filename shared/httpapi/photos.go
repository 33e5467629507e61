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
}

// photoAdded is the answer to POST /vehicles/{id}/photos: the new photo and where its bytes go.
type photoAdded struct {
	Photo  patio.Photo        `json:"photo"`
	Upload patio.UploadTarget `json:"upload"`
}

// photoRoute finds the operation of a photo path under /api/v1/vehicles/: rest is what follows
// the vehicle's id ("photos" or "photos/<photo id>"). The operations run under the vehicles'
// scopes, on the vehicle's id.
func (a *api) photoRoute(r *http.Request, rest string) (op func(http.ResponseWriter, *http.Request, string, string) error, ok bool) {
	if a.photos == nil {
		return nil, false
	}
	switch sub, photoID, hasPhoto := strings.Cut(rest, "/"); {
	case sub != "photos" || strings.Contains(photoID, "/") || hasPhoto && photoID == "":
		return nil, false
	case !hasPhoto && r.Method == http.MethodPost:
		return a.addPhoto, true
	case !hasPhoto && r.Method == http.MethodPut:
		return a.reorderPhotos, true
	case hasPhoto && r.Method == http.MethodDelete:
		return func(w http.ResponseWriter, r *http.Request, teamID, vehicleID string) error {
			return a.removePhoto(w, r, teamID, vehicleID, photoID)
		}, true
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
	if r.ContentLength != 0 {
		b, err := readBody(r)
		if err != nil {
			return err
		}
		var p patio.Problems
		decodeMembers(&p, "", b)
		if err := p.Err(); err != nil {
			return err
		}
	}
	photo, target, err := a.photos.Add(r.Context(), teamID, vehicleID, pre)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, photoAdded{Photo: photo, Upload: target})
	return nil
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
		if json.Unmarshal(raw, &order) != nil || order == nil {
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
