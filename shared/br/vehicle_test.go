package br

import "testing"

func TestNormalizePlate(t *testing.T) {
	const errFormat = "must be in the format ABC1234 or ABC1D23"
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "old bare", in: "ABC1234", want: "ABC1234"},
		{name: "old hyphen", in: "ABC-1234", want: "ABC1234"},
		{name: "old lowercase spaces", in: "  abc-1234 ", want: "ABC1234"},
		{name: "mercosul", in: "ABC1D23", want: "ABC1D23"},
		{name: "mercosul lowercase", in: "abc1d23", want: "ABC1D23"},
		{name: "mercosul hyphen", in: "ABC-1D23", want: "ABC1D23"},
		{name: "letters I O Q allowed", in: "IOQ9Z99", want: "IOQ9Z99"},
		{name: "hyphen after 4th", in: "ABC1-234", wantErr: errFormat},
		{name: "two hyphens", in: "ABC--1234", wantErr: errFormat},
		{name: "inner space", in: "ABC 1234", wantErr: errFormat},
		{name: "too short", in: "ABC123", wantErr: errFormat},
		{name: "too long", in: "ABC12345", wantErr: errFormat},
		{name: "digit in letters", in: "AB11234", wantErr: errFormat},
		{name: "letter in 4th", in: "ABCD234", wantErr: errFormat},
		{name: "letter in 6th", in: "ABC12D4", wantErr: errFormat},
		{name: "two letters mercosul", in: "ABC1DE3", wantErr: errFormat},
		{name: "non-ascii", in: "ÁBC1234", wantErr: errFormat},
		{name: "empty", in: "", wantErr: errFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizePlate(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizePlate(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestPlateKey(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "old 2 becomes C", in: "ABC1234", want: "ABC1C34"},
		{name: "mercosul unchanged", in: "ABC1C34", want: "ABC1C34"},
		{name: "old 0 becomes A", in: "XYZ9012", want: "XYZ9A12"},
		{name: "old 9 becomes J", in: "XYZ0999", want: "XYZ0J99"},
		{name: "unnormalised old", in: " abc-1234", want: "ABC1C34"},
		{name: "invalid unchanged", in: "not a plate", want: "not a plate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlateKey(tt.in); got != tt.want {
				t.Errorf("PlateKey(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestOtherPlate(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{name: "old to Mercosul", in: "XYZ9876", want: "XYZ9I76", ok: true},
		{name: "old 0 to A", in: "ABC1034", want: "ABC1A34", ok: true},
		{name: "Mercosul to old", in: "XYZ9I76", want: "XYZ9876", ok: true},
		{name: "Mercosul J to 9", in: "ABC1J34", want: "ABC1934", ok: true},
		{name: "typed with a dash, lower case", in: "xyz-9876", want: "XYZ9I76", ok: true},
		{name: "Mercosul without an old spelling", in: "RIO2K26", ok: false},
		{name: "not a plate", in: "GR-Yaris", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := OtherPlate(tt.in); got != tt.want || ok != tt.ok {
				t.Errorf("OtherPlate(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// RENAVAM vectors, weights 3,2,9,8,7,6,5,4,3,2 over the first 10 digits,
// digit = (sum*10) % 11 with 10 -> 0:
//
//	00639884962: 0+0+54+24+63+48+40+16+27+12 = 284; 2840 % 11 = 2
//	12345678900: 3+4+27+32+35+36+35+32+27+0 = 231; 2310 % 11 = 0
//	98765432103: 27+16+63+48+35+24+15+8+3+0 = 239; 2390 % 11 = 3
//	87654321090: 24+14+54+40+28+18+10+4+0+18 = 210; 2100 % 11 = 10 -> 0
func TestValidateRENAVAM(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "reference", in: "00639884962", want: "00639884962"},
		{name: "sum multiple of 11", in: "12345678900", want: "12345678900"},
		{name: "descending", in: "98765432103", want: "98765432103"},
		{name: "result 10 becomes 0", in: "87654321090", want: "87654321090"},
		{name: "surrounding spaces", in: " 00639884962 ", want: "00639884962"},
		{name: "wrong digit", in: "00639884963", wantErr: "has an invalid check digit"},
		{name: "result 10 is not 10", in: "87654321091", wantErr: "has an invalid check digit"},
		{name: "masked", in: "0063988496-2", wantErr: "must have 11 digits"},
		{name: "nine digits", in: "639884962", wantErr: "must have 11 digits"},
		{name: "twelve digits", in: "006398849620", wantErr: "must have 11 digits"},
		{name: "letter", in: "0063988496X", wantErr: "must have 11 digits"},
		{name: "empty", in: "", wantErr: "must have 11 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateRENAVAM(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("ValidateRENAVAM(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestRENAVAMReversedForm checks the vectors above with the equivalent
// "reverse the first 10 digits, weights 2,3,4,5,6,7,8,9,2,3" formulation.
func TestRENAVAMReversedForm(t *testing.T) {
	for _, s := range []string{"00639884962", "12345678900", "98765432103", "87654321090"} {
		t.Run(s, func(t *testing.T) {
			weights := []int{2, 3, 4, 5, 6, 7, 8, 9, 2, 3}
			sum := 0
			for i, w := range weights {
				sum += int(s[9-i]-'0') * w
			}
			d := sum * 10 % 11 % 10
			if got := int(s[10] - '0'); got != d {
				t.Errorf("RENAVAM(%q) check digit = %v; want %v", s, got, d)
			}
		})
	}
}

func TestValidateVIN(t *testing.T) {
	const errChars = "must contain only digits and letters other than I, O and Q"
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "uppercase", in: "9BWZZZ377VT004251", want: "9BWZZZ377VT004251"},
		{name: "lowercase", in: "9bwzzz377vt004251", want: "9BWZZZ377VT004251"},
		{name: "spaces trimmed", in: " 1M8GDM9AXKP042788 ", want: "1M8GDM9AXKP042788"},
		{name: "no check digit required", in: "1M8GDM9A1KP042788", want: "1M8GDM9A1KP042788"},
		{name: "letter I", in: "9BWZZZ377VT00425I", wantErr: errChars},
		{name: "letter o", in: "9BWZZZ377VT0o4251", wantErr: errChars},
		{name: "letter Q", in: "Q BWZZZ377VT00425", wantErr: errChars},
		{name: "hyphen", in: "9BWZZZ377-VT00425", wantErr: errChars},
		{name: "non-ascii", in: "9BWZZZ377VT00425Ä", wantErr: errChars},
		{name: "too short", in: "9BWZZZ377VT00425", wantErr: "must have 17 characters"},
		{name: "too long", in: "9BWZZZ377VT0042511", wantErr: "must have 17 characters"},
		{name: "empty", in: "", wantErr: "must have 17 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateVIN(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("ValidateVIN(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
