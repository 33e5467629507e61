// Package photos is the image function's work: what a photo's bytes may be (JPEG, PNG or WebP by
// their content, whatever was declared; at most patio.MaxPhotoBytes and patio.MaxPhotoPixels,
// judged from the header before anything is decoded), and the variants made of them (the EXIF
// orientation applied, 320, 1024 and 1920 pixels on the long side, JPEG with no metadata at all).
// Worker is the use case that reads an upload, writes its variants and records the result on the
// photo; it does no I/O of its own (the bucket and the photo use cases are interfaces it declares).
package photos

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // PNG originals
	"runtime/debug"

	"github.com/disintegration/imaging"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // WebP originals

	"github.com/patio-dev/patio/shared/patio"
)

// Sizes are the variants' long sides, in pixels: thumb, medium, large. A variant is never larger
// than the original (a small photo's variants are its own size).
var Sizes = [3]int{320, 1024, 1920}

// jpegQuality is the variants' JPEG quality: listings' usual trade of size for detail.
const jpegQuality = 82

// Refusal is a photo the image function will not take: its code, and the reason shown on the photo
// in words.
type Refusal struct {
	Code   patio.PhotoFailure
	Reason string
}

// Error says the refusal's reason.
func (r *Refusal) Error() string { return "photos: refused: " + r.Reason }

// The refusals whose words never change.
var (
	ErrNotImage = &Refusal{patio.PhotoNotAnImage, "not an image: only JPEG, PNG and WebP photos are accepted"}
	ErrTooLarge = &Refusal{patio.PhotoTooLarge, fmt.Sprintf("the file is larger than %d MB", patio.MaxPhotoBytes>>20)}
)

// tooManyPixels is the refusal of an image of w × h pixels.
func tooManyPixels(w, h int) *Refusal {
	return &Refusal{patio.PhotoTooManyPixels,
		fmt.Sprintf("the image has %d × %d pixels, more than %d megapixels", w, h, patio.MaxPhotoPixels/1_000_000)}
}

// Variants is a processed photo: the original's size after its orientation, and each size's JPEG.
type Variants struct {
	Width, Height int
	JPEG          [3][]byte // by Sizes
}

// Sniff returns the format of data by its first bytes ("jpeg", "png" or "webp"), or ErrNotImage.
func Sniff(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg", nil
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png", nil
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp", nil
	}
	return "", ErrNotImage
}

// Process checks data and makes its variants. A refusal is a *Refusal; any other error is the
// image function's own (the photo may be processed again).
func Process(data []byte) (Variants, error) {
	if len(data) > patio.MaxPhotoBytes {
		return Variants{}, ErrTooLarge
	}
	if _, err := Sniff(data); err != nil {
		return Variants{}, err
	}
	// The header says how large the decoded image would be: refuse before decoding it.
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Variants{}, &Refusal{patio.PhotoUnreadable, "the image could not be read: its header is damaged"}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > patio.MaxPhotoPixels {
		return Variants{}, tooManyPixels(cfg.Width, cfg.Height)
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return Variants{}, &Refusal{patio.PhotoUnreadable, "the image could not be read: its data is damaged or truncated"}
	}
	b := img.Bounds()
	v := Variants{Width: b.Dx(), Height: b.Dy()}
	// Largest first, each from the one before: the smaller ones cost a fraction of the first.
	src := img
	for i := len(Sizes) - 1; i >= 0; i-- {
		src = fit(src, Sizes[i])
		var out bytes.Buffer
		if err := jpeg.Encode(&out, src, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return Variants{}, fmt.Errorf("photos: encode %d: %w", Sizes[i], err)
		}
		v.JPEG[i] = out.Bytes()
	}
	debug.FreeOSMemory() // hand the decoded image's memory back before the next photo
	return v, nil
}

// fit returns img scaled so its long side is at most size, never enlarged. Catmull-Rom keeps a
// photo's edges as sharp as Lanczos does to the eye at these ratios, at two thirds of its cost.
// An image at least twice as large is halved first (halve), as often as that holds: Catmull-Rom
// then reads a quarter of the pixels, with a kernel half as wide.
func fit(img image.Image, size int) image.Image {
	for b := img.Bounds(); max(b.Dx(), b.Dy()) >= 2*size && min(b.Dx(), b.Dy()) >= 2; b = img.Bounds() {
		img = halve(img)
	}
	b := img.Bounds()
	if b.Dx() <= size && b.Dy() <= size {
		return img
	}
	return imaging.Fit(img, size, size, imaging.CatmullRom)
}

// halve returns img at half its size, each pixel the mean of the two by two it covers: bilinear
// sampling at exactly half reads each output pixel halfway between four, which is that mean (a
// box filter, cheap and gentle on fine detail before Catmull-Rom's own low-pass). x/image/draw
// reads a decoded JPEG's YCbCr planes directly.
func halve(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// IsRefusal reports whether err is a refusal, and which.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}
