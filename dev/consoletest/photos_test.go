package consoletest

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/dev/phonephoto"
	"github.com/patio-dev/patio/shared/patio"
)

// says reports whether the page now shows text; a page still loading shows nothing yet.
func says(ctx context.Context, text string) bool {
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	got, err := chromedp.Run(c, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	return err == nil && strings.Contains(got, text)
}

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
	if n := count(t, ctx, `form[action$="/photos"], ul.photos form`); n != 0 {
		t.Errorf("a viewer's page offers %d photo forms; want none", n)
	}
	// A vehicle without photos tells a viewer so, without inviting them to add any.
	bare := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":59990}`)
	open(t, ctx, "/console/vehicles/"+bare)
	if got := text(t, ctx, "#photos + p.empty"); got != "Nenhuma foto ainda." {
		t.Errorf("a viewer reads %q under a vehicle's photos when it has none; want only that there are none", got)
	}
	open(t, ctx, "/console/vehicles/"+id)
	with(t, ctx, chromedp.EmulateViewport(390, 800, chromedp.EmulateMobile))
	for _, p := range overflows(t, ctx) {
		t.Errorf("the vehicle's photos at 390 px: %s", p)
	}

	// A member moves the second photo first: it becomes the cover.
	member, _ := invite(t, tm, patio.RoleMember)
	open(t, member, "/console/vehicles/"+id)
	submit(t, member, `ul.photos li:nth-child(2) form[action$="/move"] button`)
	if got := text(t, member, "ul.photos li:first-child"); !strings.HasPrefix(got, "Foto 1 de Fiat Argo: falhou") {
		t.Errorf("after the move the first photo reads %q; want the refused one, now first", got)
	}

	// The member tries the refused photo again, with a real picture this time: it keeps its place
	// and becomes ready.
	if n := count(t, member, `ul.photos form[action$="/retry"]`); n != 1 {
		t.Fatalf("the page offers %d retries; want one, on the refused photo", n)
	}
	// The member's gallery (arrows, Try again, Delete, the picker of several files) on a phone.
	with(t, member, chromedp.EmulateViewport(360, 800, chromedp.EmulateMobile))
	for _, p := range overflows(t, member) {
		t.Errorf("the member's vehicle page at 360 px: %s", p)
	}
	for _, v := range scan(t, member, axeSource(t)) {
		t.Errorf("axe: %s (%s): %s %v", v.ID, v.Impact, v.Help, v.Nodes)
	}
	if got := submit(t, member, `ul.photos li:first-child form[action$="/retry"] button`); got != http.StatusOK ||
		text(t, member, "h1") != "Foto 1 de Fiat Argo" {
		t.Fatalf("try again = %d, %q at %s; want the photo's upload page", got, text(t, member, "h1"), location(member))
	}
	file := filepath.Join(t.TempDir(), "argo.png")
	if err := os.WriteFile(file, img.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	with(t, member, chromedp.SetUploadFiles(`#file`, []string{file}))
	submit(t, member, `main form button[type=submit]`)
	if !strings.Contains(pageText(t, member), "Foto enviada") {
		t.Errorf("after sending the file again the page reads %q; want the photo sent", text(t, member, "main"))
	}
	waitFor(t, "the retried photo ready", 60*time.Second, func() bool {
		var v struct {
			Data struct {
				Photos []patio.Photo `json:"photos"`
			} `json:"data"`
		}
		apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
		return len(v.Data.Photos) == 2 && v.Data.Photos[0].Status == patio.PhotoReady && v.Data.Photos[1].Status == patio.PhotoReady
	})
	open(t, member, "/console/vehicles/"+id)
	if n := count(t, member, `ul.photos img`); n != 2 {
		t.Errorf("after the retry the page shows %d thumbnails; want both photos'", n)
	}

	// On a screen with a mouse, the member drags the second photo onto the first: it becomes the
	// cover. The drag is the browser's own events, as a mouse makes them.
	first := value(t, member, chromedp.Evaluate[string](`document.querySelector("ul.photos li").dataset.id`))
	with(t, member, chromedp.Evaluate[chromedp.Void](`(() => {
		const [a, b] = document.querySelectorAll("ul.photos li"), dt = new DataTransfer();
		b.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: dt}));
		a.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
		a.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
	})()`))
	waitFor(t, "the page after the drop", 30*time.Second, func() bool {
		return strings.Contains(location(member), "done=done.photo.moved") && says(member, "Foto movida")
	})
	var v struct {
		Data struct {
			Photos []patio.Photo `json:"photos"`
		} `json:"data"`
	}
	apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
	if len(v.Data.Photos) != 2 || v.Data.Photos[1].ID != first {
		t.Errorf("after the drop the photos are %+v; want the first one second", v.Data.Photos)
	}
}

// TestAddPhotoFromThePhone: a salesperson on a phone adds a photo on the vehicle's page: the file
// (the camera's JPEG, turned, with its GPS) goes from the browser straight to the bucket, which
// sends the browser back to the vehicle; the photo becomes ready, its variants upright and
// without metadata; then it is deleted, asked first.
func TestAddPhotoFromThePhone(t *testing.T) {
	tm := newTeam(t)
	id := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	file := filepath.Join(t.TempDir(), "IMG_0001.jpg")
	data, err := phonephoto.JPEG(phonephoto.Halves(2000, 1500), 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, _ := invite(t, tm, patio.RoleMember)
	with(t, ctx, chromedp.EmulateViewport(390, 800, chromedp.EmulateMobile))
	open(t, ctx, "/console/vehicles/"+id)
	if got := submit(t, ctx, `form[action$="/photos"] button[type=submit]`); got != http.StatusOK || text(t, ctx, "h1") != "Foto 1 de Fiat Argo" {
		t.Fatalf("add a photo = %d, %q at %s; want its upload page", got, text(t, ctx, "h1"), location(ctx))
	}
	for _, p := range overflows(t, ctx) {
		t.Errorf("the upload page at 390 px: %s", p)
	}
	with(t, ctx, chromedp.SetUploadFiles(`#file`, []string{file}))
	submit(t, ctx, `main form button[type=submit]`)
	if u := location(ctx); !strings.Contains(u, "/console/vehicles/"+id) || !strings.Contains(pageText(t, ctx), "Foto enviada") {
		t.Fatalf("after the upload the browser is at %s (%q); want back on the vehicle's page", u, text(t, ctx, "main"))
	}

	var ready patio.Photo
	waitFor(t, "the photo processed", 60*time.Second, func() bool {
		var v struct {
			Data struct {
				Photos []patio.Photo `json:"photos"`
			} `json:"data"`
		}
		apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
		if len(v.Data.Photos) == 1 && v.Data.Photos[0].Status != patio.PhotoProcessing {
			ready = v.Data.Photos[0]
			return true
		}
		return false
	})
	if ready.Status != patio.PhotoReady || ready.URLs == nil || ready.Width == nil || *ready.Width != 1500 || *ready.Height != 2000 {
		t.Fatalf("the photo = %+v; want ready, 1500×2000 (upright)", ready)
	}
	resp, err := http.Get(ready.URLs.Medium)
	if err != nil {
		t.Fatal(err)
	}
	medium, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	img, err := jpeg.Decode(bytes.NewReader(medium))
	if err != nil {
		t.Fatalf("the medium variant is not a JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 1024 {
		t.Errorf("the medium variant is %d×%d; want 768×1024 (portrait)", b.Dx(), b.Dy())
	}
	if r, _, bl, _ := img.At(384, 20).RGBA(); r < bl {
		t.Errorf("the medium variant's top is blue; want red (the photo turned upright)")
	}
	if bytes.Contains(medium, []byte("Exif")) || bytes.Contains(medium, []byte{0xFF, 0xE1}) {
		t.Errorf("the medium variant carries Exif metadata; want none (no GPS leaves the dealership)")
	}

	open(t, ctx, "/console/vehicles/"+id)
	if n := count(t, ctx, `ul.photos img[alt="Foto 1 de Fiat Argo"]`); n != 1 {
		t.Errorf("the vehicle's page shows %d thumbnails; want the photo's", n)
	}
	if got := confirmed(t, ctx, `ul.photos form[action$="/delete"] button`); got != http.StatusOK {
		t.Fatalf("delete the photo = %d", got)
	}
	if n := count(t, ctx, "ul.photos li"); n != 0 {
		t.Errorf("after its deletion the page shows %d photos; want none", n)
	}
}

// TestAddSeveralPhotosAtOnce: on a phone, a salesperson chooses two files at once on the
// vehicle's page: the page's script has the console add a photo per file and sends each file
// straight to the bucket, then loads the page again; both photos become ready, in the order the
// files were chosen.
func TestAddSeveralPhotosAtOnce(t *testing.T) {
	tm := newTeam(t)
	id := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	dir := t.TempDir()
	front, err := phonephoto.JPEG(phonephoto.Halves(1600, 1200), 1)
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if err := png.Encode(&back, image.NewRGBA(image.Rect(0, 0, 640, 480))); err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(dir, "frente.jpg"), filepath.Join(dir, "traseira.png")}
	for i, data := range [][]byte{front, back.Bytes()} {
		if err := os.WriteFile(files[i], data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, _ := invite(t, tm, patio.RoleMember)
	with(t, ctx, chromedp.EmulateViewport(360, 800, chromedp.EmulateMobile))
	open(t, ctx, "/console/vehicles/"+id)
	if n := count(t, ctx, `#photo-batch:not([hidden]) input[type=file][multiple]`); n != 1 {
		t.Fatalf("the vehicle's page offers %d pickers of several files; want its script's one", n)
	}
	for _, p := range overflows(t, ctx) {
		t.Errorf("the vehicle's page at 360 px: %s", p)
	}
	with(t, ctx, chromedp.SetUploadFiles(`#photo-files`, files))
	waitFor(t, "the page loaded again once both files are sent", 60*time.Second, func() bool {
		return strings.Contains(location(ctx), "done=done.photos.sent") && says(ctx, "Fotos enviadas")
	})

	var photos []patio.Photo
	waitFor(t, "both photos processed", 60*time.Second, func() bool {
		var v struct {
			Data struct {
				Photos []patio.Photo `json:"photos"`
			} `json:"data"`
		}
		apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
		photos = v.Data.Photos
		return len(photos) == 2 && photos[0].Status != patio.PhotoProcessing && photos[1].Status != patio.PhotoProcessing
	})
	for i, want := range [][2]int{{1600, 1200}, {640, 480}} {
		if p := photos[i]; p.Status != patio.PhotoReady || p.Width == nil || *p.Width != want[0] || *p.Height != want[1] {
			t.Errorf("photo %d = %+v; want ready, %d×%d (the files in their order)", i+1, p, want[0], want[1])
		}
	}
	open(t, ctx, "/console/vehicles/"+id)
	if n := count(t, ctx, `ul.photos img`); n != 2 {
		t.Errorf("the vehicle's page shows %d thumbnails; want both photos'", n)
	}
}

// TestPhotoUploadsOncePerForm: the targets of several files are answered once per form: the same
// form posted again adds nothing, and a refusal comes back as JSON with its message.
func TestPhotoUploadsOncePerForm(t *testing.T) {
	tm := newTeam(t)
	id := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	_, cookie := invite(t, tm, patio.RoleMember)
	c := newClient(t, cookie)
	_, page := c.get("/console/vehicles/" + id)
	form := url.Values{"team": {hidden(page, "team")}, "form_token": {hidden(page, "form_token")}}
	post := func(count string) (int, map[string]any) {
		t.Helper()
		f := url.Values{"count": {count}}
		for k, v := range form {
			f[k] = v
		}
		resp, body := c.post("/console/vehicles/"+id+"/photos/uploads", f, nil)
		var answer map[string]any
		if err := json.Unmarshal([]byte(body), &answer); err != nil {
			t.Fatalf("POST uploads (count %s) = %d %q; want JSON", count, resp.StatusCode, body)
		}
		return resp.StatusCode, answer
	}
	if status, answer := post("31"); status != http.StatusUnprocessableEntity || answer["error"] == "" {
		t.Errorf("31 files = %d %v; want 422 with why", status, answer)
	}
	status, answer := post("2")
	uploads, _ := answer["uploads"].([]any)
	if status != http.StatusOK || len(uploads) != 2 {
		t.Fatalf("2 files = %d %v; want 200 with two targets", status, answer)
	}
	// A file the browser could not send leaves its photo waiting: the page links to its upload
	// page, where the file is sent as with the one-photo form.
	_, page = c.get("/console/vehicles/" + id)
	for _, u := range uploads {
		photoID, _ := u.(map[string]any)["id"].(string)
		if !strings.Contains(page, `href="/console/vehicles/`+id+`/photos/`+photoID+`"`) {
			t.Errorf("the vehicle's page has no link to the upload page of its waiting photo %s", photoID)
		}
	}
	if status, answer := post("2"); status != http.StatusConflict || answer["error"] == "" {
		t.Errorf("the same form again = %d %v; want 409 with why", status, answer)
	}
	var v struct {
		Data struct {
			Photos []patio.Photo `json:"photos"`
		} `json:"data"`
	}
	apiRead(t, tm.Key, "/api/v1/vehicles/"+id, &v)
	if len(v.Data.Photos) != 2 {
		t.Errorf("the vehicle holds %d photos; want the form's two, once", len(v.Data.Photos))
	}
}
