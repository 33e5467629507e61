package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/patio"
)

// photoUploadData is a photo's upload page: the form the browser posts the file with, straight
// to the photos' bucket, which sends it back to the vehicle's page.
type photoUploadData struct {
	Vehicle patio.Vehicle
	Photo   patio.Photo
	Target  patio.UploadTarget
}

// vehiclePhotoUpload shows the form that sends a photo's bytes (a file, or the phone's camera) to
// its upload target; the target is signed afresh at each visit, valid for patio.PhotoUploadWindow.
func (c *Console) vehiclePhotoUpload(rq *request) {
	id, photoID := rq.r.PathValue("id"), rq.r.PathValue("photo")
	back := absoluteURL(rq, rq.URL(vehiclesPath+"/"+id+"?done="+url.QueryEscape("done.photo.sent")+"#photos"))
	v, p, target, err := c.d.Photos.UploadTargetOf(rq.ctx(), rq.team.ID, id, photoID, back, rq.now)
	if patio.IsKind(err, patio.KindConflict) {
		c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.processed")
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	if u, err := url.Parse(target.URL); err == nil && u.Host != "" {
		rq.w.Header().Set("Content-Security-Policy", c.contentPolicy(u.Scheme+"://"+u.Host))
	}
	c.render(rq, http.StatusOK, "photo_upload", view{Title: rq.p.T("photo.upload.title", p.Position, v.Title),
		Data: photoUploadData{Vehicle: v, Photo: p, Target: target}})
}

// absoluteURL is path (under the base path) as an absolute address of this console: the scheme
// API Gateway says it was reached by (X-Forwarded-Proto), else the connection's.
func absoluteURL(rq *request, path string) string {
	scheme := rq.r.Header.Get("X-Forwarded-Proto")
	if scheme != "https" && scheme != "http" {
		scheme = "http"
		if rq.r.TLS != nil {
			scheme = "https"
		}
	}
	return scheme + "://" + rq.r.Host + path
}
