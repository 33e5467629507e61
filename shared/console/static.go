package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// static serves the console's stylesheet, script and images.
func (c *Console) static(rq *request) {
	data, contentType, ok := render.Static(rq.r.PathValue("file"))
	if !ok {
		c.fail(rq, patio.NotFoundf("page not found"))
		return
	}
	h := rq.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "public, max-age=3600")
	_, _ = rq.w.Write(data)
}
