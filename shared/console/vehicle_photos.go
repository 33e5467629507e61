package console

import (
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// photoView is one of a vehicle's photos as its page shows it: the thumbnail and the large variant
// of a ready photo, or its state in words (processing, or why it failed).
type photoView struct {
	ID           string
	Position     int
	Thumb, Large string
	// State is "" for a ready photo, else its status in the page's language (with the reason of a
	// failure).
	State string
	// Failed says the photo may be tried again; Waiting that it still waits for its bytes or
	// their processing (its upload page sends a file, again if need be).
	Failed, Waiting bool
}

// photoViews returns the vehicle's photos as its page shows them, in their order.
func photoViews(p locale.Printer, photos patio.PhotoList) []photoView {
	out := make([]photoView, len(photos))
	for i, ph := range photos {
		out[i] = photoView{ID: ph.ID, Position: ph.Position}
		switch {
		case ph.Status == patio.PhotoReady && ph.URLs != nil:
			out[i].Thumb, out[i].Large = ph.URLs.Thumb, ph.URLs.Large
		case ph.Status == patio.PhotoFailed:
			out[i].State, out[i].Failed = p.T("photo.failed", p.T(photoFailure(ph.ReasonCode))), true
		default:
			out[i].State, out[i].Waiting = p.T("photo.processing"), true
		}
	}
	return out
}

// photoFailure is the catalog key of a failed photo's reason, by its code: the API's reason is a
// sentence in English, which the console says in the page's language. A code this console does
// not know (or none) reads as a failure to process the image.
func photoFailure(code *patio.PhotoFailure) string {
	if code == nil {
		return "photo.failed.other"
	}
	switch *code {
	case patio.PhotoNotAnImage, patio.PhotoTooLarge, patio.PhotoTooManyPixels, patio.PhotoUnreadable:
		return "photo.failed." + string(*code)
	}
	return "photo.failed.other"
}
