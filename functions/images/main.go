// Command images is the Lambda function on the photos bucket's uploads: for each original a
// client sent through its presigned POST, it checks the bytes (JPEG, PNG or WebP, at most 15 MB
// and 40 megapixels), writes the three variants without metadata and marks the photo ready, or
// removes the original and marks the photo failed with the reason.
package main

import (
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/imagesapp"
)

func main() { app.Start(imagesapp.Lambda) }
