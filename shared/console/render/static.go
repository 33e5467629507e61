package render

import (
	"path"
	"strings"
)

// Static returns one of the console's static files (its stylesheet, script and images) by name,
// with its content type; false when there is no such file (a name with a slash names none).
func Static(name string) (data []byte, contentType string, ok bool) {
	data, err := assets.ReadFile("static/" + name)
	if err != nil || strings.Contains(name, "/") {
		return nil, "", false
	}
	switch path.Ext(name) {
	case ".css":
		contentType = "text/css; charset=utf-8"
	case ".svg":
		contentType = "image/svg+xml"
	case ".js":
		contentType = "text/javascript; charset=utf-8"
	default:
		contentType = "application/octet-stream"
	}
	return data, contentType, true
}
