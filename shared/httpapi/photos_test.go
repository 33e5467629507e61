package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/patio"
)

// photoStack is the API under test with a photos bucket of its own in moto.
func photoStack(t *testing.T) (*stack, *s3.Client, string) {
	t.Helper()
	testenv.Tables(t)
	client := s3.NewFromConfig(testenv.AWSConfig(t), func(o *s3.Options) { o.UsePathStyle = true })
	bucket := "photos-" + patio.Fold(t.Name())[:min(20, len(t.Name()))]
	bucket = string(bytes.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, []byte(bucket)))
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("CreateBucket(%s): %v", bucket, err)
	}
	t.Setenv("PHOTOS_BUCKET", bucket)
	return newStack(t), client, bucket
}

type photoAdded struct {
	Photo  patio.Photo        `json:"photo"`
	Upload patio.UploadTarget `json:"upload"`
}

type vehicleWithPhotos struct {
	ID       string        `json:"id"`
	Revision int           `json:"revision"`
	Photos   []patio.Photo `json:"photos"`
}

// upload sends data as a browser's form would to a presigned POST.
func upload(t *testing.T, target patio.UploadTarget, contentType string, data []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range target.Fields {
		_ = w.WriteField(k, v)
	}
	_ = w.WriteField("Content-Type", contentType)
	f, _ := w.CreateFormFile("file", "car.png")
	_, _ = f.Write(data)
	_ = w.Close()
	res, err := http.Post(target.URL, w.FormDataContentType(), &body)
	if err != nil {
		t.Fatalf("POST %s: %v", target.URL, err)
	}
	_ = res.Body.Close()
	return res
}

func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestVehiclePhotos(t *testing.T) {
	s, bucket, name := photoStack(t)
	_, c := s.team(t)
	var v vehicleWithPhotos
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	if v.Photos == nil || len(v.Photos) != 0 {
		t.Fatalf("a new vehicle's photos = %v; want []", v.Photos)
	}

	var ids []string
	for range 3 {
		res := c.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil)
		if res.Status != http.StatusCreated {
			t.Fatalf("POST photos = %d %s; want 201", res.Status, res.Body)
		}
		var added photoAdded
		res.Decode(t, &added)
		if added.Photo.Status != patio.PhotoProcessing || added.Photo.Position != len(ids)+1 || added.Upload.MaxBytes != 15<<20 {
			t.Errorf("POST photos = %+v; want processing at %d, max_bytes 15 MiB", added, len(ids)+1)
		}
		ids = append(ids, added.Photo.ID)
		if len(ids) == 1 {
			if res := upload(t, added.Upload, "image/png", smallPNG(t)); res.StatusCode/100 != 2 {
				t.Fatalf("upload to the presigned POST = %d; want 2xx", res.StatusCode)
			}
			key := "originals/" + added.Photo.ID
			out, err := bucket.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &name})
			if err != nil || len(out.Contents) != 1 || !bytes.HasSuffix([]byte(aws.ToString(out.Contents[0].Key)), []byte(added.Photo.ID)) {
				t.Errorf("after the upload the bucket holds %+v, %v; want the original (%s)", out, err, key)
			}
		}
	}

	c.Do("GET", "/api/v1/vehicles/"+v.ID, nil).Decode(t, &v)
	if got := photoOrder(v); !slices.Equal(got, ids) {
		t.Errorf("GET photos = %q; want %q in the order added", got, ids)
	}

	order := []string{ids[2], ids[0], ids[1]}
	res := c.Do("PUT", "/api/v1/vehicles/"+v.ID+"/photos", map[string]any{"order": order})
	res.Decode(t, &v)
	if res.Status != http.StatusOK || !slices.Equal(photoOrder(v), order) || v.Photos[0].Position != 1 {
		t.Errorf("PUT photos order = %d %q; want 200 %q, the first at position 1", res.Status, photoOrder(v), order)
	}
	rev := v.Revision
	c.Do("PUT", "/api/v1/vehicles/"+v.ID+"/photos", map[string]any{"order": order}).Decode(t, &v)
	if v.Revision != rev {
		t.Errorf("the same order again made revision %d; want %d (nothing written)", v.Revision, rev)
	}

	res = c.Do("DELETE", "/api/v1/vehicles/"+v.ID+"/photos/"+ids[0], nil)
	res.Decode(t, &v)
	if want := []string{ids[2], ids[1]}; res.Status != http.StatusOK || !slices.Equal(photoOrder(v), want) {
		t.Errorf("DELETE photo = %d %q; want 200 %q", res.Status, photoOrder(v), want)
	}
	out, _ := bucket.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &name})
	if len(out.Contents) != 0 {
		t.Errorf("after DELETE the bucket still serves %d objects; want none", len(out.Contents))
	}

	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"deleted photo", "DELETE", "/photos/" + ids[0], nil, http.StatusNotFound},
		{"photo id not a UUID", "DELETE", "/photos/x", nil, http.StatusNotFound},
		{"order missing one", "PUT", "/photos", map[string]any{"order": []string{ids[1]}}, http.StatusUnprocessableEntity},
		{"order repeats one", "PUT", "/photos", map[string]any{"order": []string{ids[1], ids[1]}}, http.StatusBadRequest},
		{"order not a list", "PUT", "/photos", map[string]any{"order": "x"}, http.StatusBadRequest},
		{"order of something not an id", "PUT", "/photos", map[string]any{"order": []string{"g0beae04-3078-73a9-8a52-42d9318bd7f8", ids[1]}}, http.StatusBadRequest},
		{"order absent", "PUT", "/photos", map[string]any{}, http.StatusBadRequest},
		{"unknown member", "POST", "/photos", map[string]any{"caption": "x"}, http.StatusBadRequest},
		{"GET photos", "GET", "/photos", nil, http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if res := c.With(t).Do(tt.method, "/api/v1/vehicles/"+v.ID+tt.path, tt.body); res.Status != tt.status {
				t.Errorf("%s %s = %d %s; want %d", tt.method, tt.path, res.Status, res.Body, tt.status)
			}
		})
	}
}

func photoOrder(v vehicleWithPhotos) []string {
	var ids []string
	for i, p := range v.Photos {
		if p.Position == i+1 {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

func TestVehiclePhotoLimitsAndScopes(t *testing.T) {
	s, _, _ := photoStack(t)
	team, c := s.team(t)
	var v vehicleWithPhotos
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	reader, _ := s.client(t, team.ID, "vehicles:read")
	if res := reader.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil); res.Status != http.StatusForbidden {
		t.Errorf("POST photos with vehicles:read = %d; want 403", res.Status)
	}
	_, stranger := s.team(t)
	if res := stranger.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil); res.Status != http.StatusNotFound {
		t.Errorf("POST photos on another team's vehicle = %d; want 404", res.Status)
	}
	for i := range patio.MaxPhotos {
		if res := c.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil); res.Status != http.StatusCreated {
			t.Fatalf("POST photo %d = %d %s; want 201", i+1, res.Status, res.Body)
		}
	}
	if res := c.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("POST a 31st photo = %d %s; want 422", res.Status, res.Body)
	}
}

type photoRetried struct {
	Photo  patio.Photo         `json:"photo"`
	Upload *patio.UploadTarget `json:"upload"`
}

// TestRetryPhoto: a failed photo retried is processing again with a new upload target; one whose
// original the bucket holds is processed again on it (the original copied onto itself, which the
// bucket announces as a new object), without a target; a ready photo has nothing to retry.
func TestRetryPhoto(t *testing.T) {
	s, bucket, name := photoStack(t)
	team, c := s.team(t)
	var v vehicleWithPhotos
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	add := func() photoAdded {
		t.Helper()
		var added photoAdded
		if res := c.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos", nil); res.Status != http.StatusCreated {
			t.Fatalf("POST photos = %d %s; want 201", res.Status, res.Body)
		} else {
			res.Decode(t, &added)
		}
		return added
	}
	retry := func(photoID string) (int, photoRetried) {
		t.Helper()
		var out photoRetried
		res := c.Do("POST", "/api/v1/vehicles/"+v.ID+"/photos/"+photoID+"/retry", nil)
		if res.Status == http.StatusOK {
			res.Decode(t, &out)
		}
		return res.Status, out
	}
	// What the image function records, through the same use case.
	results := patio.NewPhotos(patio.NewVehicles(s.store.Vehicles()), nil)
	record := func(photoID string, res patio.PhotoResult) {
		t.Helper()
		if _, err := results.Processed(context.Background(), patio.PhotoRef{TeamID: team.ID, VehicleID: v.ID, PhotoID: photoID}, res); err != nil {
			t.Fatal(err)
		}
	}

	failed := add()
	record(failed.Photo.ID, patio.PhotoResult{Failure: patio.PhotoNotAnImage, Reason: "not an image"})
	c.Do("GET", "/api/v1/vehicles/"+v.ID, nil).Decode(t, &v)
	if p := v.Photos[0]; p.Status != patio.PhotoFailed || p.ReasonCode == nil || *p.ReasonCode != patio.PhotoNotAnImage {
		t.Fatalf("the refused photo = %+v; want failed, not_an_image", p)
	}
	rev := v.Revision
	status, got := retry(failed.Photo.ID)
	if status != http.StatusOK || got.Photo.Status != patio.PhotoProcessing || got.Photo.Reason != nil || got.Photo.ReasonCode != nil ||
		got.Upload == nil || got.Upload.Fields["key"] == "" || got.Photo.Position != 1 {
		t.Fatalf("retry a failed photo = %d %+v; want 200, processing at 1 without a reason, with a new upload target", status, got)
	}
	if res := upload(t, *got.Upload, "image/png", smallPNG(t)); res.StatusCode/100 != 2 {
		t.Errorf("upload to the retry's target = %d; want 2xx", res.StatusCode)
	}
	c.Do("GET", "/api/v1/vehicles/"+v.ID, nil).Decode(t, &v)
	if v.Revision != rev+1 {
		t.Errorf("after the retry the vehicle is at revision %d; want %d (the photo changed)", v.Revision, rev+1)
	}

	// Its bytes are in: a retry processes them again, no target needed.
	status, got = retry(failed.Photo.ID)
	key := "originals/" + team.ID + "/" + v.ID + "/" + failed.Photo.ID
	head, err := bucket.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &name, Key: &key})
	if status != http.StatusOK || got.Upload != nil || got.Photo.Status != patio.PhotoProcessing {
		t.Errorf("retry a photo whose bytes are stored = %d %+v; want 200, processing, no upload target", status, got)
	}
	if err != nil || head.Metadata["retried-at"] == "" || aws.ToString(head.ContentType) != "image/png" {
		t.Errorf("after the retry the original = %+v, %v; want it copied onto itself (retried-at), still image/png", head, err)
	}
	c.Do("GET", "/api/v1/vehicles/"+v.ID, nil).Decode(t, &v)
	if v.Revision != rev+1 {
		t.Errorf("a retry of a processing photo made revision %d; want %d (nothing changed)", v.Revision, rev+1)
	}

	ready := add()
	record(ready.Photo.ID, patio.PhotoResult{Width: 40, Height: 30, URLs: patio.PhotoURLs{Thumb: "t", Medium: "m", Large: "l"}})
	reader, _ := s.client(t, team.ID, "vehicles:read")
	unknown, _ := patio.NewID()
	for _, tt := range []struct {
		name, method, path string
		c                  *apitest.Client
		status             int
	}{
		{"a ready photo", "POST", "/photos/" + ready.Photo.ID + "/retry", c, http.StatusUnprocessableEntity},
		{"an unknown photo", "POST", "/photos/" + unknown + "/retry", c, http.StatusNotFound},
		{"vehicles:read only", "POST", "/photos/" + failed.Photo.ID + "/retry", reader, http.StatusForbidden},
		{"GET", "GET", "/photos/" + failed.Photo.ID + "/retry", c, http.StatusNotFound},
		{"another action", "POST", "/photos/" + failed.Photo.ID + "/again", c, http.StatusNotFound},
		{"below the action", "POST", "/photos/" + failed.Photo.ID + "/retry/x", c, http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if res := tt.c.With(t).Do(tt.method, "/api/v1/vehicles/"+v.ID+tt.path, nil); res.Status != tt.status {
				t.Errorf("%s %s = %d %s; want %d", tt.method, tt.path, res.Status, res.Body, tt.status)
			}
		})
	}
}
