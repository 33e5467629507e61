package imagesapp_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/imagesapp"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/s3photos"
)

// env is the image function on DynamoDB Local and a bucket of moto, with the API's photo use
// cases beside it.
type env struct {
	handler imagesapp.Handler
	photos  patio.Photos
	s3      *s3.Client
	bucket  string
	team    string
}

func newEnv(t *testing.T) env {
	t.Helper()
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	bucket := "images-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	t.Setenv("PHOTOS_BUCKET", bucket)
	t.Setenv("PHOTOS_URL", "http://photos.test")
	c, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	h, err := imagesapp.Build(cfg, c, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	store := dynamostore.New(cfg, c.Tables)
	return env{handler: h, s3: client, bucket: bucket, team: "01a25000-0000-7000-8000-000000000001",
		photos: patio.NewPhotos(patio.NewVehicles(store.Vehicles()), s3photos.New(cfg, bucket, c.PhotosURL))}
}

// upload adds a photo to a new vehicle, sends data through its presigned POST as a client would,
// and hands the image function the bucket's event.
func (e env) upload(t *testing.T, vehicles patio.Vehicles, data []byte) (patio.Vehicle, patio.Photo) {
	t.Helper()
	ctx := context.Background()
	v, err := vehicles.Create(ctx, e.team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Argo"),
		Price: patio.Some(money.Cents(8990000))})
	if err != nil {
		t.Fatal(err)
	}
	p, target, err := e.photos.Add(ctx, e.team, v.ID, patio.Precondition{})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, val := range target.Fields {
		_ = w.WriteField(k, val)
	}
	_ = w.WriteField("Content-Type", "image/png")
	f, _ := w.CreateFormFile("file", "car")
	_, _ = f.Write(data)
	_ = w.Close()
	res, err := http.Post(target.URL, w.FormDataContentType(), &body)
	if err != nil || res.StatusCode/100 != 2 {
		t.Fatalf("POST to the upload target = %v, %v; want 2xx", res, err)
	}
	_ = res.Body.Close()
	key := s3photos.OriginalKey(patio.PhotoRef{TeamID: e.team, VehicleID: v.ID, PhotoID: p.ID})
	detail, _ := json.Marshal(map[string]any{"bucket": map[string]any{"name": e.bucket},
		"object": map[string]any{"key": key, "size": len(data)}})
	ev := events.CloudWatchEvent{ID: "ev-" + p.ID, Source: "aws.s3", DetailType: "Object Created", Detail: detail}
	if err := e.handler(ctx, ev); err != nil {
		t.Fatalf("the image function = %v; want nil", err)
	}
	v, err = vehicles.Get(ctx, e.team, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err = v.Photo(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return v, p
}

// keys lists the bucket's current objects.
func (e env) keys(t *testing.T) []string {
	t.Helper()
	out, err := e.s3.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &e.bucket})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	slices.Sort(keys)
	return keys
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{G: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestUploadedPNGBecomesReady(t *testing.T) {
	e := newEnv(t)
	vehicles := patio.NewVehicles(dynamostore.New(testenv.AWSConfig(t), envTables(t)).Vehicles())
	v, p := e.upload(t, vehicles, pngOf(t, 2400, 1600))
	if p.Status != patio.PhotoReady || p.Width == nil || *p.Width != 2400 || *p.Height != 1600 || p.URLs == nil {
		t.Fatalf("photo after processing = %+v; want ready, 2400×1600, with URLs", p)
	}
	if want := "http://photos.test/photos/" + p.ID + "/320.jpg"; p.URLs.Thumb != want {
		t.Errorf("thumb URL = %q; want %q", p.URLs.Thumb, want)
	}
	wantSizes := map[string][2]int{"320": {320, 213}, "1024": {1024, 682}, "1920": {1920, 1280}}
	for size, dims := range wantSizes {
		out, err := e.s3.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &e.bucket,
			Key: aws.String("photos/" + p.ID + "/" + size + ".jpg")})
		if err != nil {
			t.Fatalf("variant %s: %v", size, err)
		}
		cfg, err := jpeg.DecodeConfig(out.Body)
		_ = out.Body.Close()
		if err != nil || cfg.Width != dims[0] || cfg.Height != dims[1] || aws.ToString(out.CacheControl) == "" {
			t.Errorf("variant %s = %d×%d (%v), Cache-Control %q; want a %d×%d JPEG cacheable", size, cfg.Width, cfg.Height, err,
				aws.ToString(out.CacheControl), dims[0], dims[1])
		}
	}
	if v.Revision != 3 {
		t.Errorf("vehicle revision = %d; want 3 (created, photo added, photo ready)", v.Revision)
	}
}

func TestRefusedUploadsFailWithTheirReason(t *testing.T) {
	e := newEnv(t)
	vehicles := patio.NewVehicles(dynamostore.New(testenv.AWSConfig(t), envTables(t)).Vehicles())
	bomb := pngOf(t, 2, 2)
	binary.BigEndian.PutUint32(bomb[16:], 60000)
	binary.BigEndian.PutUint32(bomb[20:], 60000)
	binary.BigEndian.PutUint32(bomb[29:], crc32.ChecksumIEEE(bomb[12:29]))
	for _, tt := range []struct {
		name, reason string
		code         patio.PhotoFailure
		data         []byte
	}{
		{"not an image", "not an image: only JPEG, PNG and WebP photos are accepted", patio.PhotoNotAnImage,
			[]byte("%PDF-1.7 a brochure, not a car")},
		{"decompression bomb", "the image has 60000 × 60000 pixels, more than 40 megapixels", patio.PhotoTooManyPixels, bomb},
		// Storage refuses it on AWS (the policy's content-length-range); moto does not, so the
		// function's own check is what this sees.
		{"too large", "the file is larger than 15 MB", patio.PhotoTooLarge, append(pngOf(t, 8, 8), make([]byte, 15<<20)...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, p := e.upload(t, vehicles, tt.data)
			if p.Status != patio.PhotoFailed || p.Reason == nil || *p.Reason != tt.reason || p.ReasonCode == nil ||
				*p.ReasonCode != tt.code || p.URLs != nil {
				t.Errorf("photo = %+v; want failed with %s %q and no URLs", p, tt.code, tt.reason)
			}
			if keys := e.keys(t); len(keys) != 0 {
				t.Errorf("the bucket holds %q after a refusal; want nothing", keys)
			}
		})
	}
}

// envTables are the table names testenv set in the environment.
func envTables(t *testing.T) dynamostore.Tables {
	t.Helper()
	c, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	return c.Tables
}
