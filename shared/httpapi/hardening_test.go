package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostileBodies: hostile or sloppy input is refused with a clear 400 naming the member, and
// nothing is stored.
func TestHostileBodies(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	base := `"brand":"Fiat","model":"Uno"`
	tests := []struct {
		name  string
		body  string
		field string // the member the 400 names
	}{
		{"a 1 MiB number", `{` + base + `,"price":` + strings.Repeat("9", 1<<20-100) + `}`, "price"},
		{"a 41-character number", `{` + base + `,"price":1` + strings.Repeat("0", 40) + `}`, "price"},
		{"a duplicate member", `{` + base + `,"price":1,"price":2}`, "price"},
		{"a duplicate nested member", `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"city":"A","city":"B"}}`, "address.city"},
		{"NUL in text", `{` + base + `,"price":1,"title":"a\u0000b"}`, "title"},
		{"a control character", `{` + base + `,"price":1,"color":"azul\u0007"}`, "color"},
		{"a newline in one-line text", `{` + base + `,"price":1,"title":"a\nb"}`, "title"},
		{"a right-to-left override", `{` + base + `,"price":1,"title":"car\u202egnp.exe"}`, "title"},
		{"a zero-width space for a required text", `{"brand":"\u200b","model":"Uno","price":1}`, "brand"},
		{"invalid UTF-8", "{" + base + ",\"price\":1,\"title\":\"a\xffb\"}", "title"},
		{"a lone surrogate escape", `{` + base + `,"price":1,"title":"a\ud800b"}`, "title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/api/v1/vehicles"
			if strings.Contains(tt.body, `"type"`) {
				path = "/api/v1/clients"
			}
			res := c.With(t).Do("POST", path, tt.body)
			if res.Status != 400 || res.Error == nil || len(res.Error.Details) == 0 || res.Error.Details[0].Field != tt.field {
				t.Fatalf("POST %.80s = %d %.300s; want 400 naming %s", tt.body, res.Status, res.Body, tt.field)
			}
		})
	}
	if list := c.Do("GET", "/api/v1/vehicles", nil); list.Pagination.Total != 0 {
		t.Errorf("vehicles after refused bodies = %d; want 0", list.Pagination.Total)
	}
	ok := c.Do("POST", "/api/v1/vehicles", `{`+base+`,"price":1,"description":"Linha 1\n\tLinha 2"}`)
	if ok.Status != 201 {
		t.Errorf("POST with tab and newline in description = %d %s; want 201", ok.Status, ok.Body)
	}
	old := c.Do("POST", "/api/v1/clients", `{"type":"individual","name":"Ana","cpf":"52998224725","birth_date":"0001-01-01"}`)
	if old.Status != 400 || !strings.Contains(old.Error.Message, "1900-01-01") {
		t.Errorf("POST with birth_date 0001-01-01 = %d %s; want 400 naming 1900-01-01", old.Status, old.Body)
	}
}

func TestStrictQueries(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	for _, q := range []string{"limit=5;page=2", "limit=%zz", "limit=1;limit=2&limit=3", "limit=+5", "limit=%205",
		"page=-1", "page=99999999999", "page=1&page=2", "sort=price&sort=title", "year_min=+2000"} {
		if res := c.Do("GET", "/api/v1/vehicles?"+q, nil); res.Status != 400 {
			t.Errorf("GET ?%s = %d; want 400", q, res.Status)
		}
	}
	for _, body := range []string{`{"brand":"Fiat","model":"Uno","price":1}`, `{"brand":"Fiat","model":"Uno","price":2,"status":"reservado"}`,
		`{"brand":"Fiat","model":"Uno","price":3}`} {
		c.Do("POST", "/api/v1/vehicles", body)
	}
	var ids []string
	for _, q := range []string{"status=ativo,reservado", "status=ativo&status=reservado", "status=reservado&status=ativo,reservado"} {
		res := c.Do("GET", "/api/v1/vehicles?"+q, nil)
		if res.Status != http.StatusOK || res.Pagination.Total != 3 {
			t.Errorf("GET ?%s = %d total %v; want 200 with all 3", q, res.Status, res.Pagination)
		}
		ids = append(ids, string(res.Data))
	}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("repeated and comma-separated status filters answered differently")
	}
}
