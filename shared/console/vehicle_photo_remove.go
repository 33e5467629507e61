package console

import "github.com/patio-dev/patio/shared/patio"

// vehiclePhotoRemove deletes a photo of the vehicle (asked first): hidden at once, its bytes
// removed by the bucket's lifecycle later.
func (c *Console) vehiclePhotoRemove(rq *request) {
	id := rq.r.PathValue("id")
	_, err := c.d.Photos.Remove(rq.ctx(), rq.team.ID, id, rq.r.PathValue("photo"), patio.Precondition{})
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.removed")
}

// photoName names the path's photo in its deletion's confirmation ("photo 2 of Fiat Argo").
func (c *Console) photoName(rq *request) (string, bool) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err == nil {
		var p patio.Photo
		if p, err = v.Photo(rq.r.PathValue("photo")); err == nil {
			return rq.p.T("photo.alt", p.Position, v.Title), true
		}
	}
	c.fail(rq, err)
	return "", false
}
