package s3photos

import (
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/patio"
)

// The bucket's layout. Originals are private, under the team and vehicle they belong to (the image
// function learns which photo an upload is from its key alone); variants are public, under the
// photo's id only, so a listing's URLs say nothing about the team.
const (
	// OriginalsPrefix starts every original's key: originals/<team>/<vehicle>/<photo>. The bucket
	// notifies the image function of objects created under it.
	OriginalsPrefix = "originals/"
	// VariantsPrefix starts every variant's key: photos/<photo>/<size>.jpg. The distribution
	// serves this prefix only.
	VariantsPrefix = "photos/"
)

// Sizes are the variants' sizes, the long side in pixels: thumb, medium, large.
var Sizes = [3]int{320, 1024, 1920}

// OriginalKey is the key of a photo's original.
func OriginalKey(ref patio.PhotoRef) string {
	return OriginalsPrefix + ref.TeamID + "/" + ref.VehicleID + "/" + ref.PhotoID
}

// VariantKey is the key of a photo's variant of size.
func VariantKey(photoID string, size int) string {
	return VariantsPrefix + photoID + "/" + strconv.Itoa(size) + ".jpg"
}

// RefOf reads the photo an original's key names; ok is false for a key that is not an original's
// (or names ids that are not UUIDs).
func RefOf(key string) (ref patio.PhotoRef, ok bool) {
	rest, found := strings.CutPrefix(key, OriginalsPrefix)
	parts := strings.Split(rest, "/")
	if !found || len(parts) != 3 {
		return ref, false
	}
	for _, p := range parts {
		if _, valid := patio.ParseID(p); !valid {
			return ref, false
		}
	}
	return patio.PhotoRef{TeamID: parts[0], VehicleID: parts[1], PhotoID: parts[2]}, true
}

// URLs are a photo's public addresses under base, the distribution's (or the local stack's) URL.
func URLs(base, photoID string) patio.PhotoURLs {
	u := func(size int) string { return strings.TrimRight(base, "/") + "/" + VariantKey(photoID, size) }
	return patio.PhotoURLs{Thumb: u(Sizes[0]), Medium: u(Sizes[1]), Large: u(Sizes[2])}
}
