package console

import (
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// TestPhotoFailures: a failed photo says why by its code, in each language, each code in words of
// its own; a photo failed without a code this console knows says the image could not be processed.
func TestPhotoFailures(t *testing.T) {
	for _, lang := range []string{"pt-BR", "en"} {
		p := locale.New(lang, time.UTC)
		other := p.T("photo.failed.other")
		seen := map[string]patio.PhotoFailure{}
		for _, code := range patio.PhotoFailures {
			got := p.T(photoFailure(&code))
			if got == other || got == photoFailure(&code) {
				t.Errorf("%s: photoFailure(%s) reads %q; want words of its own", lang, code, got)
			}
			if prev, ok := seen[got]; ok {
				t.Errorf("%s: %s and %s both read %q", lang, prev, code, got)
			}
			seen[got] = code
		}
		unknown := patio.PhotoFailure("from_a_later_release")
		for _, code := range []*patio.PhotoFailure{nil, &unknown} {
			if got := p.T(photoFailure(code)); got != other {
				t.Errorf("%s: photoFailure(%v) reads %q; want %q", lang, code, got, other)
			}
		}
	}
}
