package console

import "github.com/patio-dev/patio/shared/patio"

// vehiclePhotoRetry tries a failed photo again: it turns processing and, as a refused photo's
// bytes are never kept, the browser goes to its upload page to send a file again; when the bucket
// still holds its bytes, they are processed again and the vehicle's page says so.
func (c *Console) vehiclePhotoRetry(rq *request) {
	id, photoID := rq.r.PathValue("id"), rq.r.PathValue("photo")
	_, target, err := c.d.Photos.Retry(rq.ctx(), rq.team.ID, id, photoID, patio.Precondition{})
	if err != nil {
		c.fail(rq, err)
		return
	}
	if target == nil {
		c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.retried")
		return
	}
	// The upload page signs a target of its own, which sends the browser back here.
	c.redirect(rq, vehiclesPath+"/"+id+"/photos/"+photoID)
}
