package photos_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/patio-dev/patio/dev/phonephoto"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/photos"
)

// gradient is a w×h image whose left half is red and right half blue, so that a rotation shows.
func gradient(w, h int) image.Image { return phonephoto.Halves(w, h) }

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jpegWithExif is a JPEG of img as a phone writes it: an orientation tag and a GPS pointer.
func jpegWithExif(t *testing.T, img image.Image, orientation uint16) []byte {
	t.Helper()
	data, err := phonephoto.JPEG(img, orientation)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestProcessMakesThreeVariantsWithoutMetadata(t *testing.T) {
	// Orientation 6: the camera was turned; the stored 4000×3000 pixels show upright as 3000×4000.
	data := jpegWithExif(t, gradient(4000, 3000), 6)
	v, err := photos.Process(data)
	if err != nil {
		t.Fatalf("Process = %v", err)
	}
	if v.Width != 3000 || v.Height != 4000 {
		t.Errorf("Process size = %d×%d; want 3000×4000 (orientation applied)", v.Width, v.Height)
	}
	for i, size := range photos.Sizes {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(v.JPEG[i]))
		if err != nil {
			t.Fatalf("variant %d is not a JPEG: %v", size, err)
		}
		if cfg.Height != size || cfg.Width != size*3/4 {
			t.Errorf("variant %d = %d×%d; want %d×%d (portrait, long side %d)", size, cfg.Width, cfg.Height, size*3/4, size, size)
		}
		if bytes.Contains(v.JPEG[i], []byte("Exif")) || bytes.Contains(v.JPEG[i], []byte{0xFF, 0xE1}) {
			t.Errorf("variant %d carries an APP1 (Exif) segment; want no metadata", size)
		}
	}
	// Rotated 90° clockwise, the red left half is now the top.
	img, _ := jpeg.Decode(bytes.NewReader(v.JPEG[0]))
	top, bottom := img.At(120, 10), img.At(120, 310)
	if r, _, b, _ := top.RGBA(); r < b {
		t.Errorf("the top of the thumb is %v; want red (the original's left, turned upright)", top)
	}
	if r, _, b, _ := bottom.RGBA(); b < r {
		t.Errorf("the bottom of the thumb is %v; want blue", bottom)
	}
}

func TestProcessNeverEnlarges(t *testing.T) {
	v, err := photos.Process(encodePNG(t, gradient(40, 30)))
	if err != nil {
		t.Fatalf("Process(small PNG) = %v", err)
	}
	for i := range photos.Sizes {
		if cfg, _ := jpeg.DecodeConfig(bytes.NewReader(v.JPEG[i])); cfg.Width != 40 || cfg.Height != 30 {
			t.Errorf("variant %d of a 40×30 PNG = %d×%d; want 40×30", photos.Sizes[i], cfg.Width, cfg.Height)
		}
	}
}

// TestProcessLongThinImages: a panorama far wider than the large variant keeps its shape, and a
// strip of pixels is never scaled to nothing.
func TestProcessLongThinImages(t *testing.T) {
	for _, tt := range []struct {
		name          string
		w, h          int
		large, medium [2]int
	}{
		{"panorama", 8000, 2000, [2]int{1920, 480}, [2]int{1024, 256}},
		{"strip", 9000, 3, [2]int{1920, 1}, [2]int{1024, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := photos.Process(encodePNG(t, gradient(tt.w, tt.h)))
			if err != nil {
				t.Fatalf("Process(%d×%d PNG) = %v", tt.w, tt.h, err)
			}
			for i, want := range map[int][2]int{2: tt.large, 1: tt.medium} {
				if cfg, err := jpeg.DecodeConfig(bytes.NewReader(v.JPEG[i])); err != nil || cfg.Width != want[0] || cfg.Height != want[1] {
					t.Errorf("variant %d of a %d×%d PNG = %d×%d, %v; want %d×%d", photos.Sizes[i], tt.w, tt.h, cfg.Width, cfg.Height, err, want[0], want[1])
				}
			}
		})
	}
}

// bombPNG is a PNG whose header declares w×h pixels, followed by nothing that decodes: its
// header alone must refuse it.
func bombPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	data := encodePNG(t, gradient(2, 2))
	binary.BigEndian.PutUint32(data[16:], uint32(w))
	binary.BigEndian.PutUint32(data[20:], uint32(h))
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29])) // IHDR's CRC
	return data
}

func TestProcessRefusals(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		code   patio.PhotoFailure
		reason string
	}{
		{name: "text", data: []byte("hello, this is not a photo"), code: patio.PhotoNotAnImage,
			reason: "not an image: only JPEG, PNG and WebP photos are accepted"},
		{name: "GIF", data: []byte("GIF89a\x01\x00\x01\x00"), code: patio.PhotoNotAnImage,
			reason: "not an image: only JPEG, PNG and WebP photos are accepted"},
		{name: "too large", data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 15<<20)...), code: patio.PhotoTooLarge,
			reason: "the file is larger than 15 MB"},
		{name: "decompression bomb", data: bombPNG(t, 50000, 50000), code: patio.PhotoTooManyPixels,
			reason: "the image has 50000 × 50000 pixels, more than 40 megapixels"},
		{name: "damaged header", data: []byte("\xFF\xD8\xFF\xE0 a JPEG cut after its first marker"), code: patio.PhotoUnreadable,
			reason: "the image could not be read: its header is damaged"},
		{name: "truncated JPEG", data: truncated(jpegWithExif(t, gradient(640, 480), 1)), code: patio.PhotoUnreadable,
			reason: "the image could not be read: its data is damaged or truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := photos.Process(tt.data)
			if r, ok := photos.IsRefusal(err); !ok || r.Code != tt.code || r.Reason != tt.reason {
				t.Errorf("Process(%s) = %v; want the refusal %s %q", tt.name, err, tt.code, tt.reason)
			}
		})
	}
}

// truncated is the first half of data.
func truncated(data []byte) []byte { return data[:len(data)/2] }
