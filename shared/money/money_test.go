package money

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Cents
		err  bool
	}{
		{name: "tenth", in: "0.1", want: 10},
		{name: "cents", in: "19999.99", want: 1999999},
		{name: "max", in: "999999999.99", want: Max},
		{name: "zero", in: "0", want: 0},
		{name: "integer", in: "5", want: 500},
		{name: "trailing zeros", in: "1.500", want: 150},
		{name: "exponent", in: "1e3", want: 100000},
		{name: "three decimals", in: "1.005", err: true},
		{name: "negative", in: "-1", err: true},
		{name: "over max", in: "1000000000", err: true},
		{name: "string", in: `"10"`, err: true},
		{name: "garbage", in: "abc", err: true},
		{name: "empty", in: "", err: true},
		{name: "bool", in: "true", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("Parse(%q) error = %v; want error %v", tt.in, err, tt.err)
			}
			if !tt.err && got != tt.want {
				t.Errorf("Parse(%q) = %d; want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name string
		in   Cents
		want string
	}{
		{name: "tenth", in: 10, want: "0.1"},
		{name: "cents", in: 1999999, want: "19999.99"},
		{name: "max", in: Max, want: "999999999.99"},
		{name: "whole", in: 500, want: "5"},
		{name: "one cent", in: 1, want: "0.01"},
		{name: "zero", in: 0, want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("Cents(%d).String() = %q; want %q", int64(tt.in), got, tt.want)
			}
			back, err := Parse(tt.want)
			if err != nil || back != tt.in {
				t.Errorf("Parse(%q) = %d, %v; want %d", tt.want, back, err, tt.in)
			}
		})
	}
}
