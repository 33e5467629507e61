// Package phonephoto makes the photos tests upload: pictures whose halves are red and blue, so
// that a rotation shows, and JPEGs carrying what a phone's camera writes (an Exif segment with an
// orientation tag and a GPS latitude), so that stripping metadata and applying the orientation
// can be checked on the variants.
package phonephoto

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
)

// Halves is a w × h image whose left half is red and right half blue.
func Halves(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 220, A: 255}
			if x >= w/2 {
				c = color.RGBA{B: 220, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// JPEG is img as a phone's camera writes it: a JPEG with an APP1 Exif segment holding the
// orientation tag and a GPS IFD (a latitude reference).
func JPEG(img image.Image, orientation uint16) ([]byte, error) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, err
	}
	return WithExif(b.Bytes(), orientation), nil
}

// WithExif puts after the JPEG's SOI an Exif segment with Orientation and a GPSInfo pointer to an
// IFD holding a latitude reference.
func WithExif(jpg []byte, orientation uint16) []byte {
	var tiff bytes.Buffer
	be := binary.BigEndian
	tiff.WriteString("MM\x00\x2a")
	_ = binary.Write(&tiff, be, uint32(8))
	// IFD0: 2 entries (Orientation, GPSInfo), then next IFD offset 0.
	_ = binary.Write(&tiff, be, uint16(2))
	_ = binary.Write(&tiff, be, [6]uint16{0x0112, 3, 0, 1, orientation, 0})
	gpsOffset := uint32(8 + 2 + 2*12 + 4)
	_ = binary.Write(&tiff, be, [2]uint16{0x8825, 4})
	_ = binary.Write(&tiff, be, [2]uint32{1, gpsOffset})
	_ = binary.Write(&tiff, be, uint32(0))
	// GPS IFD: GPSLatitudeRef "S".
	_ = binary.Write(&tiff, be, uint16(1))
	_ = binary.Write(&tiff, be, [2]uint16{0x0001, 2})
	_ = binary.Write(&tiff, be, uint32(2))
	tiff.WriteString("S\x00\x00\x00")
	_ = binary.Write(&tiff, be, uint32(0))
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, 0xFF, 0xE1, byte((len(seg)+2)>>8), byte(len(seg)+2))
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}
