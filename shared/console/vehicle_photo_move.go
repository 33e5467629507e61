package console

import (
	"slices"

	"github.com/patio-dev/patio/shared/patio"
)

// vehiclePhotoMove moves a photo one place earlier or later in the vehicle's order (the form's
// "to": "up" or "down"); the first photo is the cover.
func (c *Console) vehiclePhotoMove(rq *request) {
	id, photoID := rq.r.PathValue("id"), rq.r.PathValue("photo")
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, id)
	if err != nil {
		c.fail(rq, err)
		return
	}
	ids := make([]string, len(v.Photos))
	for i, p := range v.Photos {
		ids[i] = p.ID
	}
	i := slices.Index(ids, photoID)
	j := i - 1
	if rq.r.PostForm.Get("to") == "down" {
		j = i + 1
	}
	if i < 0 || j < 0 || j >= len(ids) {
		c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.unmoved")
		return
	}
	ids[i], ids[j] = ids[j], ids[i]
	if _, err := c.d.Photos.Reorder(rq.ctx(), rq.team.ID, id, ids, patio.Precondition{}); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, vehiclesPath+"/"+id+"#photos", "done.photo.moved")
}
