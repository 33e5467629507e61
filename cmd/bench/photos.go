package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

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
		env := setup(ctx)
		defer env.close()
		size := must(buildSize(ctx, env.root, "functions/images"))
		fmt.Printf("functions/images binary             %.1f MB (budget %d MB) %s\n", float64(size)/(1<<20), imagesBinaryBudget>>20, verdict(size <= imagesBinaryBudget))
		for _, r := range env.photoReads(ctx) {
			x, local := ratio(r.sides[0].m.latency(), r.sides[1].m.latency()), ratio(r.sides[0].local, r.sides[1].local)
			fmt.Printf("%-35s modeled p50 on AWS %s = %.2f × %s (budget %.1f) %s; DynamoDB Local %.2f×\n", r.endpoint, ms(r.sides[0].m.latency()), x,
				r.rawIs, r.budget, verdict(x <= r.budget), local)
		}
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

// photoReads samples, in the main team, a GET by id of a vehicle with 30 ready photos and a list
// of 25 vehicles each with a cover, each beside a GET by id of a vehicle without photos.
func (env *benchEnv) photoReads(ctx context.Context) []sample {
	vehicles := patio.NewVehicles(env.store.Vehicles())
	add := func(n int) string {
		v := must(vehicles.Create(ctx, env.main.teamID, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Argo"),
			Price: patio.Some(money.Cents(8990000))}))
		for range n {
			photoID, _ := patio.NewID()
			v = must(vehicles.Revise(ctx, env.main.teamID, v.ID, patio.Precondition{}, func(cur patio.Vehicle, _ time.Time) (patio.Vehicle, error) {
				next, err := cur.AddPhoto(photoID)
				if err != nil {
					return next, err
				}
				url := "https://d1.cloudfront.net/photos/" + photoID
				return next.PhotoProcessed(photoID, patio.PhotoResult{Width: 4000, Height: 3000,
					URLs: patio.PhotoURLs{Thumb: url + "/320.jpg", Medium: url + "/1024.jpg", Large: url + "/1920.jpg"}})
			}))
		}
		return v.ID
	}
	bare, full := add(0), add(30)
	for range 24 {
		add(1)
	}
	rng, none := rand.New(rand.NewPCG(9, 9)), env.get(env.main, "/api/v1/vehicles/"+bare)
	return []sample{
		env.sampleOf(ctx, rng, sample{endpoint: "GET by id, 30 photos", rawIs: "a GET by id without photos", budget: photoGetBudget},
			env.get(env.main, "/api/v1/vehicles/"+full), none),
		env.sampleOf(ctx, rng, sample{endpoint: "list of 25 vehicles with covers", rawIs: "a GET by id", budget: coverListBudget},
			env.get(env.main, "/api/v1/vehicles?limit=25&sort=-created_at"), none),
	}
}
