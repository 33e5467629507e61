package console

// vehiclePhotoAdd adds a photo to the vehicle, once per form token, waiting for its bytes, and
// sends the browser to its upload page: the bytes go from the browser straight to the photos'
// bucket, never through the console. A second post of the form goes to the same page.
func (c *Console) vehiclePhotoAdd(rq *request) {
	id := rq.r.PathValue("id")
	c.once(rq, rq.r.PostForm, func() (string, bool) {
		p, err := c.d.Photos.AddSlot(rq.ctx(), rq.team.ID, id)
		if err != nil { // a vehicle full or archived too: its page in the reader's language
			c.fail(rq, err)
			return "", false
		}
		path := vehiclesPath + "/" + id + "/photos/" + p.ID
		c.redirect(rq, path)
		return path, true
	})
}
