package console

import "github.com/patio-dev/patio/shared/patio"

// vehiclePhotoOrder puts the vehicle's photos in the order the page's script posts (order: each
// photo's id once, the first the cover), once a photo was dragged to its place.
func (c *Console) vehiclePhotoOrder(rq *request) {
	id := rq.r.PathValue("id")
	if _, err := c.d.Photos.Reorder(rq.ctx(), rq.team.ID, id, rq.r.PostForm["order"], patio.Precondition{}); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.moved")
}
