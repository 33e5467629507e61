package patio_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// withPhotos is a vehicle holding n processing photos p1..pn.
func withPhotos(t *testing.T, n int) patio.Vehicle {
	t.Helper()
	v := patio.Vehicle{Status: patio.VehicleActive}
	for i := 1; i <= n; i++ {
		var err error
		if v, err = v.AddPhoto(fmt.Sprintf("p%d", i)); err != nil {
			t.Fatalf("AddPhoto(p%d) = %v", i, err)
		}
	}
	return v
}

func photoIDs(v patio.Vehicle) []string {
	var ids []string
	for i, p := range v.Photos {
		if p.Position != i+1 {
			return append(ids, fmt.Sprintf("%s at position %d", p.ID, p.Position))
		}
		ids = append(ids, p.ID)
	}
	return ids
}

func TestAddPhoto(t *testing.T) {
	tests := []struct {
		name   string
		have   int
		status patio.VehicleStatus
		kind   patio.Kind
	}{
		{name: "first", have: 0, status: patio.VehicleActive},
		{name: "thirtieth", have: 29, status: patio.VehicleSold},
		{name: "thirty-first", have: 30, status: patio.VehicleActive, kind: patio.KindConflict},
		{name: "archived vehicle", have: 1, status: patio.VehicleArchived, kind: patio.KindConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := withPhotos(t, tt.have)
			v.Status = tt.status
			got, err := v.AddPhoto("new")
			if tt.kind != patio.KindInternal {
				if !patio.IsKind(err, tt.kind) {
					t.Fatalf("AddPhoto = %v; want kind %v", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			last := got.Photos[len(got.Photos)-1]
			if last.ID != "new" || last.Status != patio.PhotoProcessing || last.Position != tt.have+1 {
				t.Errorf("AddPhoto: last photo = %+v; want new, processing, at %d", last, tt.have+1)
			}
			if len(v.Photos) != tt.have {
				t.Errorf("AddPhoto changed the vehicle it was called on")
			}
		})
	}
}

func TestReorderPhotos(t *testing.T) {
	v := withPhotos(t, 3)
	tests := []struct {
		name  string
		order []string
		want  []string
		kind  patio.Kind
	}{
		{name: "reversed", order: []string{"p3", "p2", "p1"}, want: []string{"p3", "p2", "p1"}},
		{name: "same", order: []string{"p1", "p2", "p3"}, want: []string{"p1", "p2", "p3"}},
		{name: "repeated", order: []string{"p1", "p1", "p3"}, kind: patio.KindInvalid},
		{name: "missing one", order: []string{"p1", "p2"}, kind: patio.KindConflict},
		{name: "unknown", order: []string{"p1", "p2", "p9"}, kind: patio.KindConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.ReorderPhotos(tt.order)
			if tt.want == nil {
				if !patio.IsKind(err, tt.kind) {
					t.Fatalf("ReorderPhotos(%q) = %v; want kind %v", tt.order, err, tt.kind)
				}
				return
			}
			if err != nil || !slices.Equal(photoIDs(got), tt.want) {
				t.Errorf("ReorderPhotos(%q) = %q, %v; want %q", tt.order, photoIDs(got), err, tt.want)
			}
		})
	}
	if !slices.Equal(photoIDs(v), []string{"p1", "p2", "p3"}) {
		t.Errorf("ReorderPhotos changed the vehicle it was called on: %q", photoIDs(v))
	}
	same, _ := v.ReorderPhotos([]string{"p1", "p2", "p3"})
	if patio.Changed(v, same) {
		t.Errorf("ReorderPhotos in the same order changed the vehicle; want no write (no event)")
	}
}

func TestRemoveAndProcessPhoto(t *testing.T) {
	v := withPhotos(t, 3)
	got, err := v.RemovePhoto("p2")
	if err != nil || !slices.Equal(photoIDs(got), []string{"p1", "p3"}) {
		t.Errorf("RemovePhoto(p2) = %q, %v; want p1, p3 renumbered", photoIDs(got), err)
	}
	if _, err := v.RemovePhoto("p9"); !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("RemovePhoto(p9) = %v; want KindNotFound", err)
	}
	urls := patio.PhotoURLs{Thumb: "t", Medium: "m", Large: "l"}
	ready, err := v.PhotoProcessed("p2", patio.PhotoResult{Width: 4000, Height: 3000, URLs: urls})
	if p, _ := ready.Photo("p2"); err != nil || p.Status != patio.PhotoReady || *p.Width != 4000 || *p.URLs != urls || p.Reason != nil || p.ReasonCode != nil {
		t.Errorf("PhotoProcessed(ready) = %+v, %v; want ready 4000x3000 with its URLs", p, err)
	}
	failed, err := ready.PhotoProcessed("p2", patio.PhotoResult{Failure: patio.PhotoNotAnImage, Reason: "not an image"})
	if p, _ := failed.Photo("p2"); err != nil || p.Status != patio.PhotoFailed || p.URLs != nil || p.Width != nil ||
		*p.Reason != "not an image" || *p.ReasonCode != patio.PhotoNotAnImage {
		t.Errorf("PhotoProcessed(failed) = %+v, %v; want failed with its reason's code and words only", p, err)
	}
	again, err := failed.PhotoProcessed("p2", patio.PhotoResult{Width: 4000, Height: 3000, URLs: urls})
	if p, _ := again.Photo("p2"); err != nil || p.Status != patio.PhotoReady || p.Reason != nil || p.ReasonCode != nil {
		t.Errorf("PhotoProcessed(ready after failed) = %+v, %v; want ready, its reason gone", p, err)
	}
	if _, err := v.PhotoProcessed("p9", patio.PhotoResult{Failure: patio.PhotoUnreadable, Reason: "x"}); !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("PhotoProcessed(p9) = %v; want KindNotFound (a removed photo's result is dropped)", err)
	}
}

// TestRetryPhoto: a failed photo retried is processing again, its reason gone, in its place; one
// still processing stays as it is; a ready one, an unknown one and an archived vehicle's are
// refused.
func TestRetryPhoto(t *testing.T) {
	v := withPhotos(t, 3)
	urls := patio.PhotoURLs{Thumb: "t", Medium: "m", Large: "l"}
	v, _ = v.PhotoProcessed("p1", patio.PhotoResult{Width: 4, Height: 3, URLs: urls})
	v, _ = v.PhotoProcessed("p2", patio.PhotoResult{Failure: patio.PhotoTooLarge, Reason: "the file is larger than 15 MB"})
	archived := v
	archived.Status = patio.VehicleArchived
	for _, tt := range []struct {
		name string
		v    patio.Vehicle
		id   string
		kind *patio.Kind // nil: retried
	}{
		{"failed", v, "p2", nil},
		{"processing", v, "p3", nil},
		{"ready", v, "p1", new(patio.KindConflict)},
		{"unknown", v, "p9", new(patio.KindNotFound)},
		{"archived vehicle", archived, "p2", new(patio.KindConflict)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.v.RetryPhoto(tt.id)
			if tt.kind != nil {
				if !patio.IsKind(err, *tt.kind) {
					t.Errorf("RetryPhoto(%s) = %v; want kind %v", tt.id, err, *tt.kind)
				}
				return
			}
			p, _ := got.Photo(tt.id)
			before, _ := tt.v.Photo(tt.id)
			if err != nil || p.Status != patio.PhotoProcessing || p.Reason != nil || p.ReasonCode != nil || p.Position != before.Position {
				t.Errorf("RetryPhoto(%s) = %+v, %v; want processing without a reason at %d", tt.id, p, err, before.Position)
			}
			if q, _ := tt.v.Photo(tt.id); q.Status != before.Status {
				t.Errorf("RetryPhoto(%s) changed the vehicle it was given", tt.id)
			}
		})
	}
}
