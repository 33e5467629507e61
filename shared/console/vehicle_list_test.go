package console

import (
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// TestStockRows: a vehicle's days in stock are whole days since it was registered, until its sale
// once sold.
func TestStockRows(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *patio.Timestamp { ts := patio.NewTimestamp(now.Add(d)); return &ts }
	for _, tc := range []struct {
		name    string
		created time.Duration
		sold    *patio.Timestamp
		want    int
	}{
		{"registered today", -time.Hour, nil, 0},
		{"a day less a second", -24*time.Hour + time.Second, nil, 0},
		{"whole days", -(30*24*time.Hour + 5*time.Hour), nil, 30},
		{"sold: until its sale", -40 * 24 * time.Hour, at(-10 * 24 * time.Hour), 30},
		{"a clock ahead of now", time.Minute, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := patio.Vehicle{CreatedAt: *at(tc.created), SoldAt: tc.sold}
			if got := stockRows([]patio.Vehicle{v}, now)[0].DaysInStock; got != tc.want {
				t.Errorf("stockRows(%s).DaysInStock = %d; want %d", tc.name, got, tc.want)
			}
		})
	}
}

// The stock list shows a vehicle's cover only once its first photo is ready.
func TestStockRowCover(t *testing.T) {
	ready := patio.Photo{ID: "p1", Status: patio.PhotoReady, URLs: &patio.PhotoURLs{Thumb: "https://cdn/p1/320.jpg"}}
	for _, tc := range []struct {
		name   string
		photos patio.PhotoList
		want   string
	}{
		{"no photos", nil, ""},
		{"first ready", patio.PhotoList{ready, {ID: "p2", Status: patio.PhotoProcessing}}, "https://cdn/p1/320.jpg"},
		{"first processing", patio.PhotoList{{ID: "p2", Status: patio.PhotoProcessing}, ready}, ""},
	} {
		if got := (stockRow{Vehicle: patio.Vehicle{Photos: tc.photos}}).Cover(); got != tc.want {
			t.Errorf("Cover(%s) = %q; want %q", tc.name, got, tc.want)
		}
	}
}
