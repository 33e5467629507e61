package httpapi

import (
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// BenchmarkRejectLongNumber is issue 9's budget line: a body whose price is a 1 MiB run of digits
// is refused, before any decoding, in well under 5 ms of CPU.
func BenchmarkRejectLongNumber(b *testing.B) {
	data := []byte(`{"brand":"Fiat","model":"Uno","price":` + strings.Repeat("9", 1<<20) + `}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseBody(data); !patio.IsKind(err, patio.KindInvalid) {
			b.Fatalf("parseBody(1 MiB number) = %v; want KindInvalid", err)
		}
	}
}

// BenchmarkScanBody is the scan's cost on an ordinary body.
func BenchmarkScanBody(b *testing.B) {
	data := []byte(`{"brand":"Toyota","model":"Corolla","version":"XEi 2.0","plate":"ABC1D23","price":119990.50,` +
		`"manufacture_year":2023,"model_year":2024,"description":"Único dono, revisões em dia."}`)
	for b.Loop() {
		if err := scanJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScanJSON(t *testing.T) {
	tests := []struct {
		name, body, field string // field "" for no problem
	}{
		{"ordinary", `{"a":1,"b":{"c":"x\\"y","d":[1,2]},"e":-1.5e3}`, ""},
		{"40 characters", `{"price":` + strings.Repeat("1", 40) + `}`, ""},
		{"41 characters", `{"price":` + strings.Repeat("1", 41) + `}`, "price"},
		{"a number in a nested object", `{"address":{"number":` + strings.Repeat("1", 50) + `}}`, "address.number"},
		{"a duplicate", `{"a":1,"b":2,"a":3}`, "a"},
		{"the same name in two objects", `{"a":{"x":1},"b":{"x":1}}`, ""},
		{"a duplicate spelled with an escape", `{"ab":1,"a\u0062":2}`, "ab"},
		{"a colon-looking string", `{"a":"1,\"a\":2"}`, ""},
		{"a lone low surrogate", `{"a":"\udc00"}`, "a"},
		{"a surrogate pair", `{"a":"\ud83d\ude97"}`, ""},
		{"invalid UTF-8", "{\"a\":\"\xc3\x28\"}", "a"},
	}
	for _, tt := range tests {
		err := scanJSON([]byte(tt.body))
		var got string
		if e, ok := err.(*patio.Error); ok {
			got = e.Details[0].Field
		}
		if (err != nil) != (tt.field != "") || got != tt.field {
			t.Errorf("scanJSON(%s: %.60s) = %v (field %q); want a problem of %q", tt.name, tt.body, err, got, tt.field)
		}
	}
}
