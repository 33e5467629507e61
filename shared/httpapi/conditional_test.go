package httpapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

func TestRevisionAndETag(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	res := c.Do("POST", "/api/v1/vehicles", newVehicle(nil))
	var v vehicle
	res.Decode(t, &v)
	if v.Revision != 1 || res.Header.Get("ETag") != `"r1"` {
		t.Fatalf("POST = revision %d, ETag %s; want 1, \"r1\"", v.Revision, res.Header.Get("ETag"))
	}
	path := "/api/v1/vehicles/" + v.ID
	steps := []struct {
		name string
		body any
		want int
	}{
		{"a change", map[string]any{"mileage_km": 10}, 2},
		{"the same change again", map[string]any{"mileage_km": 10}, 2},
		{"another change", map[string]any{"color": "azul"}, 3},
	}
	for _, st := range steps {
		res := c.Do("PUT", path, st.body)
		res.Decode(t, &v)
		if v.Revision != st.want || res.Header.Get("ETag") != fmt.Sprintf(`"r%d"`, st.want) {
			t.Errorf("PUT %s = revision %d, ETag %s; want %d", st.name, v.Revision, res.Header.Get("ETag"), st.want)
		}
	}
	get := c.Do("GET", path, nil)
	get.Decode(t, &v)
	if v.Revision != 3 || get.Header.Get("ETag") != `"r3"` {
		t.Errorf("GET = revision %d, ETag %s; want 3", v.Revision, get.Header.Get("ETag"))
	}
}

func TestIfMatch(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	path := "/api/v1/vehicles/" + v.ID
	c.Do("PUT", path, map[string]any{"mileage_km": 1}) // now at r2
	tests := []struct {
		name    string
		method  string
		ifMatch string
		status  int
	}{
		{"stale", "PUT", `"r1"`, 412},
		{"weak current", "PUT", `W/"r2"`, 412},
		{"not ours", "PUT", `"bogus"`, 412},
		{"malformed", "PUT", `r2`, 400},
		{"empty list", "PUT", ` , `, 400},
		{"stale delete", "DELETE", `"r1"`, 412},
		{"one of several", "PUT", `"r1", "r2"`, 200}, // r2 → r3
		{"star", "PUT", `*`, 200},                    // r3 → r4
		{"current delete", "DELETE", `"r4"`, 200},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c.With(t)
			before := c.Do("GET", path, nil)
			var body any
			if tt.method == "PUT" {
				body = map[string]any{"mileage_km": 100 + i}
			}
			res := c.DoWith(tt.method, path, body, http.Header{"If-Match": {tt.ifMatch}})
			if res.Status != tt.status {
				t.Fatalf("%s If-Match %s = %d %s; want %d", tt.method, tt.ifMatch, res.Status, res.Body, tt.status)
			}
			switch tt.status {
			case 412:
				if res.ErrorCode() != "PRECONDITION_FAILED" {
					t.Errorf("code = %s; want PRECONDITION_FAILED", res.ErrorCode())
				}
			case 400:
				if len(res.Error.Details) != 1 || res.Error.Details[0].In != "header" || res.Error.Details[0].Field != "If-Match" {
					t.Errorf("details = %+v; want one problem of header If-Match", res.Error.Details)
				}
			}
			if tt.status != 200 {
				if after := c.Do("GET", path, nil); string(after.Data) != string(before.Data) {
					t.Errorf("after a %d the vehicle changed: %s; want %s", tt.status, after.Data, before.Data)
				}
			}
		})
	}
}

func TestIfNoneMatch(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	path := "/api/v1/vehicles/" + v.ID
	tests := []struct {
		header string
		status int
	}{
		{`"r1"`, 304},
		{`W/"r1"`, 304},
		{`"r0", "r1"`, 304},
		{`*`, 304},
		{`"r2"`, 200},
		{`r1`, 400},
	}
	for _, tt := range tests {
		res := c.DoWith("GET", path, nil, http.Header{"If-None-Match": {tt.header}})
		if res.Status != tt.status {
			t.Errorf("GET If-None-Match %s = %d; want %d", tt.header, res.Status, tt.status)
		}
		if tt.status == 304 && (res.Header.Get("ETag") != `"r1"` || res.Header.Get("X-Request-Id") == "") {
			t.Errorf("304 headers = %v; want ETag \"r1\" and X-Request-Id", res.Header)
		}
	}
}

// Ten writers holding one ETag: exactly one wins, the others learn that the record moved.
func TestConcurrentIfMatch(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	counts := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			res := c.DoWith("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"mileage_km": 1000 + i},
				http.Header{"If-Match": {`"r1"`}})
			mu.Lock()
			counts[res.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if counts[200] != 1 || counts[412] != 9 {
		t.Errorf("10 concurrent PUTs with If-Match \"r1\" = %v; want 1 × 200 and 9 × 412", counts)
	}
}

// Without If-Match the last writer wins, and contention never surfaces as an error.
func TestConcurrentPuts(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	const n = 16 // many lost races, within the update's race budget on a small, busy machine
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			statuses[i] = c.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"mileage_km": 5000 + i}).Status
		})
	}
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusOK {
			t.Errorf("PUT %d of %d concurrent = %d; want 200", i, n, st)
		}
	}
	var got struct {
		vehicle
		MileageKm int `json:"mileage_km"`
	}
	c.Do("GET", "/api/v1/vehicles/"+v.ID, nil).Decode(t, &got)
	if got.Revision != 1+n || got.MileageKm < 5000 || got.MileageKm >= 5000+n {
		t.Errorf("after %d concurrent PUTs: revision %d, mileage_km %d; want %d and one of the values sent",
			n, got.Revision, got.MileageKm, 1+n)
	}
}

// A 400 lists every problem it found, the edge's (types) and the domain's (values) alike.
func TestErrorDetails(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	res := c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Fiat", "model": "Uno", "plate": "AB12345",
		"price": "10", "fuel": "vapor", "colour": "red"})
	if res.Status != 400 {
		t.Fatalf("POST = %d %s; want 400", res.Status, res.Body)
	}
	got := map[string]string{}
	for _, d := range res.Error.Details {
		got[d.Field] = d.In
	}
	for _, field := range []string{"plate", "price", "fuel", "colour"} {
		if got[field] != "body" {
			t.Errorf("details = %+v; want a body problem of %s", res.Error.Details, field)
		}
	}
	if res.Error.Message != res.Error.Details[0].Message {
		t.Errorf("message = %q; want the first detail's %q", res.Error.Message, res.Error.Details[0].Message)
	}
	q := c.Do("GET", "/api/v1/vehicles?limit=0&sort=colour&page=x", nil)
	if n := len(q.Error.Details); q.Status != 400 || n != 3 {
		t.Errorf("GET with three bad parameters = %d with %d details %+v; want 400 with 3", q.Status, n, q.Error.Details)
	}
}
