package console

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/patio-dev/patio/shared/patio"
)

// photoUploadsAnswer is what a vehicle's page's script gets for the files it is about to send:
// one upload target per file, in the files' order.
type photoUploadsAnswer struct {
	Uploads []photoUploadTarget `json:"uploads"`
}

// photoUploadTarget is one file's target: a presigned POST to the photos' bucket.
type photoUploadTarget struct {
	ID     string            `json:"id"`
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
}

// vehiclePhotoUploads adds as many photos as the script is about to send files (the form's count),
// once per form token, and answers each one's upload target as JSON: the script sends every file
// straight to the bucket, showing its progress, then loads the vehicle's page again. A refusal
// (a vehicle full or archived, the form already sent) is JSON too, with its message in the page's
// language.
func (c *Console) vehiclePhotoUploads(rq *request) {
	n, err := strconv.Atoi(rq.r.PostForm.Get("count"))
	if err != nil {
		c.failJSON(rq, patio.Errorf(patio.KindInvalid, "%s must be between %d and %d", "count", 1, patio.MaxPhotos))
		return
	}
	token := rq.r.PostForm.Get("form_token")
	if token == "" {
		c.failJSON(rq, patio.Invalidf("the form is incomplete; reload the page"))
		return
	}
	ctx, hash := rq.ctx(), patio.HashKey(token)
	first, _, err := c.d.Forms.ClaimForm(ctx, hash, rq.now, rq.now.Add(formTokenLife))
	if err == nil && !first {
		err = patio.Errorf(patio.KindPrecondition, "this form was already sent")
	}
	if err != nil {
		c.failJSON(rq, err)
		return
	}
	id := rq.r.PathValue("id")
	uploads, err := c.d.Photos.AddUploads(ctx, rq.team.ID, id, n)
	if err != nil {
		_ = c.d.Forms.ReleaseForm(ctx, hash)
		c.failJSON(rq, err)
		return
	}
	_ = c.d.Forms.SetFormResult(ctx, hash, vehiclesPath+"/"+id)
	answer := photoUploadsAnswer{Uploads: make([]photoUploadTarget, len(uploads))}
	for i, u := range uploads {
		answer.Uploads[i] = photoUploadTarget{ID: u.Photo.ID, URL: u.Target.URL, Fields: u.Target.Fields}
	}
	writeJSON(rq, http.StatusOK, answer)
}

// failJSON answers a script's request with the error's status (as a page would have it) and its
// message in the page's language.
func (c *Console) failJSON(rq *request, err error) {
	status, _ := c.failure(rq, err)
	writeJSON(rq, status, map[string]string{"error": rq.p.Error(err)})
}

// writeJSON answers v as JSON.
func writeJSON(rq *request, status int, v any) {
	rq.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	rq.w.WriteHeader(status)
	_ = json.NewEncoder(rq.w).Encode(v)
}

// allowUploads lets the vehicle's page's script reach the photos' bucket (connect-src) beside the
// console itself, when the console knows where browsers send photos.
func (c *Console) allowUploads(rq *request) {
	if c.d.PhotosUploadOrigin == "" || c.d.Photos == nil {
		return
	}
	rq.w.Header().Set("Content-Security-Policy", c.contentPolicy("")+"; connect-src 'self' "+c.d.PhotosUploadOrigin)
}
