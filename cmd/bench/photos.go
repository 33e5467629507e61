package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/photos"
)

// Budgets of the vehicles' photos (`bin/bench photos`).
const (
	photoProcessBudget = 1500 * time.Millisecond // a 12-megapixel JPEG's three variants, p50
	photoMemoryBudget  = 512 << 20               // the image function's memory
	imagesBinaryBudget = 12 << 20                // functions/images' bootstrap
	photoGetBudget     = 1.2                     // GET with 30 photos ÷ GET with none
	coverListBudget    = 3.0                     // a list of 25 vehicles with covers ÷ GET by id
)

// photosBench measures the photos' budgets and prints them; it returns the exit status.
func photosBench(ctx context.Context) int {
	var err error
	func() {
		defer catch(&err)
		fmt.Println("== photos")
		p50, cpu, rss := measureProcessing()
		fmt.Printf("12 MP JPEG processed (3 variants)   p50 %s (budget %s) %s\n", ms(p50), ms(photoProcessBudget), verdict(p50 <= photoProcessBudget))
		// CPU time says what the machine's other load does to the wall time above.
		fmt.Printf("  CPU time per photo (all threads)  %s\n", ms(cpu))
		fmt.Printf("peak memory of the process          %d MB (budget %d MB) %s\n", rss>>20, photoMemoryBudget>>20, verdict(rss <= photoMemoryBudget))
		size := imagesBinarySize(ctx)
		fmt.Printf("functions/images binary             %.1f MB (budget %d MB) %s\n", float64(size)/(1<<20), imagesBinaryBudget>>20, verdict(size <= imagesBinaryBudget))
		none, thirty, list := measurePhotoReads(ctx)
		fmt.Printf("GET by id, no photos                p50 %s\n", ms(none))
		fmt.Printf("GET by id, 30 photos                p50 %s = %s × (budget %.1f) %s\n", ms(thirty), times(thirty, none), photoGetBudget,
			verdict(ratio(thirty, none) <= photoGetBudget))
		fmt.Printf("list of 25 vehicles with covers     p50 %s = %s × GET by id (budget %.1f) %s\n", ms(list), times(list, none), coverListBudget,
			verdict(ratio(list, none) <= coverListBudget))
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench photos:", err)
		return 1
	}
	return 0
}

// measureProcessing processes a 4000×3000 JPEG (a phone's photo: detail everywhere) seven times
// and returns the median, the CPU time per run and the process's peak resident memory.
func measureProcessing() (time.Duration, time.Duration, int64) {
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.Set(x, y, color.RGBA{R: uint8(x * y), G: uint8(x + y), B: uint8(x ^ y), A: 255})
		}
	}
	var b bytes.Buffer
	check(jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}))
	data := b.Bytes()
	var runs []time.Duration
	var before syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &before))
	for range 7 {
		start := time.Now()
		must(photos.Process(data))
		runs = append(runs, time.Since(start))
	}
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	cpu := time.Duration(ru.Utime.Nano()+ru.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / time.Duration(len(runs))
	return median(runs), cpu, ru.Maxrss << 10 // Linux reports kilobytes
}

// imagesBinarySize builds functions/images as the Makefile does and returns its size.
func imagesBinarySize(ctx context.Context) int64 {
	_, tpl, err := samtemplate.LoadModule()
	check(err)
	path := filepath.Dir(tpl)
	tmp := must(os.MkdirTemp("", "patio-bench-images-"))
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bootstrap")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./functions/images")
	cmd.Dir, cmd.Env = path, append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("build functions/images: %w\n%s", err, msg))
	}
	return must(os.Stat(bin)).Size()
}

// measurePhotoReads serves the API on the engines and returns the p50 of a GET by id of a vehicle
// without photos, of one with 30 ready photos, and of a list of 25 vehicles each with a cover.
func measurePhotoReads(ctx context.Context) (none, thirty, list time.Duration) {
	cfg := must(awsconfig.Load(ctx))
	_, _, res := provision(ctx, cfg, "photos")
	for k, v := range res.Env {
		check(os.Setenv(k, v))
	}
	conf := must(app.LoadConfig(os.LookupEnv))
	store := dynamostore.New(cfg, conf.Tables)
	p := createTeam(ctx, store, "Bench photos")
	vehicles := patio.NewVehicles(store.Vehicles())
	add := func(n int) string {
		v := must(vehicles.Create(ctx, p.teamID, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Argo"),
			Price: patio.Some(money.Cents(8990000))}))
		for range n {
			photoID, _ := patio.NewID()
			v = must(vehicles.Revise(ctx, p.teamID, v.ID, patio.Precondition{}, func(cur patio.Vehicle, _ time.Time) (patio.Vehicle, error) {
				next, err := cur.AddPhoto(photoID)
				if err != nil {
					return next, err
				}
				return next.PhotoProcessed(photoID, patio.PhotoResult{Width: 4000, Height: 3000,
					URLs: patio.PhotoURLs{Thumb: "https://d1.cloudfront.net/photos/" + photoID + "/320.jpg",
						Medium: "https://d1.cloudfront.net/photos/" + photoID + "/1024.jpg",
						Large:  "https://d1.cloudfront.net/photos/" + photoID + "/1920.jpg"}})
			}))
		}
		return v.ID
	}
	bare, full := add(0), add(30)
	for range 24 {
		add(1)
	}
	h := must(app.API(cfg, conf, slog.New(slog.DiscardHandler), app.Vehicles))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	once := func(path string) time.Duration {
		req := must(http.NewRequestWithContext(ctx, "GET", base+path, nil))
		req.Header.Set("Authorization", "Bearer "+p.secret)
		start := time.Now()
		resp := must(http.DefaultClient.Do(req))
		var body struct{ Success bool }
		check(json.NewDecoder(resp.Body).Decode(&body))
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if !body.Success {
			check(fmt.Errorf("GET %s = %d", path, resp.StatusCode))
		}
		return time.Since(start)
	}
	// The three reads take turns, so that the machine's load weighs on each alike.
	paths := []string{"/api/v1/vehicles/" + bare, "/api/v1/vehicles/" + full, "/api/v1/vehicles?limit=25&sort=-created_at"}
	runs := make([][]time.Duration, len(paths))
	for i := range 330 {
		for j, path := range paths {
			if d := once(path); i >= 30 { // warm-up
				runs[j] = append(runs[j], d)
			}
		}
	}
	return median(runs[0]), median(runs[1]), median(runs[2])
}
