package consoletest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
)

// uploadPhoto adds a photo to the vehicle through the API and sends body to its upload target as
// an integrator does (the presigned POST), returning the photo's id.
func uploadPhoto(t *testing.T, key, vehicleID, contentType string, body []byte) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, stack.APIURL+"/api/v1/vehicles/"+vehicleID+"/photos", http.NoBody)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var added struct {
		Data struct {
			Photo  patio.Photo        `json:"photo"`
			Upload patio.UploadTarget `json:"upload"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&added)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST photos = %d, %v; want 201", resp.StatusCode, err)
	}
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	for k, v := range added.Data.Upload.Fields {
		_ = w.WriteField(k, v)
	}
	_ = w.WriteField("Content-Type", contentType)
	f, _ := w.CreateFormFile("file", "photo")
	_, _ = f.Write(body)
	_ = w.Close()
	up, err := http.Post(added.Data.Upload.URL, w.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	_ = up.Body.Close()
	if up.StatusCode/100 != 2 {
		t.Fatalf("upload = %d; want 2xx", up.StatusCode)
	}
	return added.Data.Photo.ID
}

// TestVehiclePhotos: a vehicle's page shows its photos in their order, a ready one as its
// thumbnail linking to the large variant, one the image function refused with why, in the page's
// language; the phone's width holds them.
func TestVehiclePhotos(t *testing.T) {
	tm := newTeam(t)
	id := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 800, 600))); err != nil {
		t.Fatal(err)
	}
	uploadPhoto(t, tm.Key, id, "image/png", img.Bytes())
	uploadPhoto(t, tm.Key, id, "image/png", []byte("these bytes are not a picture of a car"))
	waitFor(t, "both photos processed", 60*time.Second, func() bool {
		var v struct {
			Data struct {
				Photos []patio.Photo `json:"photos"`
			} `json:"data"`
		}
		apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
		done := len(v.Data.Photos) == 2
		for _, p := range v.Data.Photos {
			done = done && p.Status != patio.PhotoProcessing
		}
		return done
	})

	ctx, _ := invite(t, tm, patio.RoleViewer)
	open(t, ctx, "/console/vehicles/"+id)
	if n := count(t, ctx, `ul.photos img[alt="Foto 1 de Fiat Argo"]`); n != 1 {
		t.Errorf("the vehicle's page shows %d thumbnails of photo 1; want its one", n)
	}
	large := value(t, ctx, chromedp.AttributeValue(chromedp.CSS("ul.photos a"), "href"))
	if !strings.Contains(large.Value, "1920") && !strings.Contains(large.Value, "large") {
		t.Errorf("the thumbnail links to %q; want the large variant", large.Value)
	}
	if got := text(t, ctx, "ul.photos .photo-state"); got != "Foto 2 de Fiat Argo: falhou: não é uma foto JPEG, PNG ou WebP" {
		t.Errorf("the refused photo reads %q; want why, in Portuguese", got)
	}
	with(t, ctx, chromedp.EmulateViewport(390, 800, chromedp.EmulateMobile))
	for _, p := range overflows(t, ctx) {
		t.Errorf("the vehicle's photos at 390 px: %s", p)
	}
}
