package localstack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/patio"
)

// The local stack runs the image function on the bucket's notifications, as EventBridge invokes
// it on AWS: a PNG uploaded through the API's presigned POST becomes ready, and its variants are
// served at their URLs.
func TestLocalStackProcessesUploadedPhotos(t *testing.T) {
	tables := testenv.Tables(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := localstack.Start(ctx, localstack.Options{Tables: tables, APIAddr: "127.0.0.1:0",
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Shutdown() })
	creds, err := st.NewTeam(ctx, "Photos", "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path string, body any, out any) {
		t.Helper()
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, st.APIURL+path, bytes.NewReader(data))
		if body == nil {
			req.Body = http.NoBody
		}
		req.Header.Set("Authorization", "Bearer "+creds.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env struct{ Data json.RawMessage }
		if err := json.NewDecoder(res.Body).Decode(&env); err != nil || res.StatusCode/100 != 2 {
			t.Fatalf("%s %s = %d, %v", method, path, res.StatusCode, err)
		}
		_ = json.Unmarshal(env.Data, out)
	}
	var v struct {
		ID     string        `json:"id"`
		Photos []patio.Photo `json:"photos"`
	}
	call("POST", "/api/v1/vehicles", map[string]any{"brand": "Fiat", "model": "Argo", "price": 89900}, &v)
	var added struct {
		Photo  patio.Photo        `json:"photo"`
		Upload patio.UploadTarget `json:"upload"`
	}
	call("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil, &added)

	var img bytes.Buffer
	_ = png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 1200, 900)))
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	for k, val := range added.Upload.Fields {
		_ = w.WriteField(k, val)
	}
	_ = w.WriteField("Content-Type", "image/png")
	f, _ := w.CreateFormFile("file", "car.png")
	_, _ = f.Write(img.Bytes())
	_ = w.Close()
	res, err := http.Post(added.Upload.URL, w.FormDataContentType(), &form)
	if err != nil || res.StatusCode/100 != 2 {
		t.Fatalf("upload = %v, %v; want 2xx", res, err)
	}
	_ = res.Body.Close()

	deadline := time.Now().Add(60 * time.Second)
	for {
		call("GET", "/api/v1/vehicles/"+v.ID, nil, &v)
		if len(v.Photos) == 1 && v.Photos[0].Status != patio.PhotoProcessing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("photo still %+v after 60 s; want it processed", v.Photos)
		}
		time.Sleep(200 * time.Millisecond)
	}
	p := v.Photos[0]
	if p.Status != patio.PhotoReady || p.URLs == nil {
		t.Fatalf("photo = %+v; want ready with URLs", p)
	}
	res, err = http.Get(p.URLs.Medium)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		t.Logf("GET %s = %d %q", p.URLs.Medium, res.StatusCode, body[:min(300, len(body))])
	}
	if err != nil || cfg.Width != 1024 || cfg.Height != 768 {
		t.Errorf("GET %s = %d×%d JPEG (%v); want 1024×768", p.URLs.Medium, cfg.Width, cfg.Height, err)
	}
}
