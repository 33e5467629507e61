package br

import "testing"

// CNPJ vectors. Character values are ASCII code minus 48 ('0'..'9' = 0..9,
// 'A' = 17, 'B' = 18, ..., 'Z' = 42). W1 = 5,4,3,2,9,8,7,6,5,4,3,2 and
// W2 = 6,5,4,3,2,9,8,7,6,5,4,3,2; digit = 0 if sum%11 < 2 else 11 - sum%11.
//
// 12ABC34501DE35 (Receita Federal's published example), values
// 1,2,17,18,19,3,4,5,0,1,20,21:
//
//	dv1: 5+8+51+36+171+24+28+30+0+4+60+42 = 459; 459 % 11 = 8 -> 3
//	dv2: 6+10+68+54+38+27+32+35+0+5+80+63+2*3 = 424; 424 % 11 = 6 -> 5
//
// AB1CD2EF000170, values 17,18,1,19,20,2,21,22,0,0,0,1:
//
//	dv1: 85+72+3+38+180+16+147+132+0+0+0+2 = 675; 675 % 11 = 4 -> 7
//	dv2: 102+90+4+57+40+18+168+154+0+0+0+3+2*7 = 650; 650 % 11 = 1 -> 0
//
// Z9Y8X7W6000105, values 42,9,41,8,40,7,39,6,0,0,0,1:
//
//	dv1: 210+36+123+16+360+56+273+36+0+0+0+2 = 1112; 1112 % 11 = 1 -> 0
//	dv2: 252+45+164+24+80+63+312+42+0+0+0+3+2*0 = 985; 985 % 11 = 6 -> 5
//
// PATIO2026XYZ06, values 32,17,36,25,31,2,0,2,6,40,41,42:
//
//	dv1: 160+68+108+50+279+16+0+12+30+160+123+84 = 1090; 1090 % 11 = 1 -> 0
//	dv2: 192+85+144+75+62+18+0+14+36+200+164+126+2*0 = 1116; 1116 % 11 = 5 -> 6
//
// 11.222.333/0001-81 (numeric):
//
//	dv1: 5+4+6+4+18+24+21+18+0+0+0+2 = 102; 102 % 11 = 3 -> 8
//	dv2: 6+5+8+6+4+27+24+21+0+0+0+3+2*8 = 120; 120 % 11 = 10 -> 1
//
// 11.444.777/0001-61 (numeric):
//
//	dv1: 5+4+12+8+36+56+49+42+0+0+0+2 = 214; 214 % 11 = 5 -> 6
//	dv2: 6+5+16+12+8+63+56+49+0+0+0+3+2*6 = 230; 230 % 11 = 10 -> 1
//
// Wrong algorithms give other digits for the RFB example: valuing letters
// as 'A' = 10 yields 12ABC34501DE45 and valuing them as 0 yields
// 12ABC34501DE06; both must be rejected.
func TestNormalizeCNPJ(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "rfb example bare", in: "12ABC34501DE35", want: "12ABC34501DE35"},
		{name: "rfb example masked", in: "12.ABC.345/01DE-35", want: "12ABC34501DE35"},
		{name: "rfb example lowercase", in: "12abc34501de35", want: "12ABC34501DE35"},
		{name: "rfb example mixed case masked spaces", in: " 12.aBc.345/01dE-35 ", want: "12ABC34501DE35"},
		{name: "alphanumeric AB1CD2EF", in: "AB.1CD.2EF/0001-70", want: "AB1CD2EF000170"},
		{name: "alphanumeric Z9Y8X7W6", in: "z9y8x7w6000105", want: "Z9Y8X7W6000105"},
		{name: "alphanumeric PATIO2026XYZ", in: "PA.TIO.202/6XYZ-06", want: "PATIO2026XYZ06"},
		{name: "numeric masked", in: "11.222.333/0001-81", want: "11222333000181"},
		{name: "numeric bare", in: "11222333000181", want: "11222333000181"},
		{name: "numeric second example", in: "11.444.777/0001-61", want: "11444777000161"},
		{name: "rfb example with A=10 digits", in: "12ABC34501DE45", wantErr: "has an invalid check digit"},
		{name: "rfb example with letters=0 digits", in: "12ABC34501DE06", wantErr: "has an invalid check digit"},
		{name: "rfb example swapped digits", in: "12ABC34501DE53", wantErr: "has an invalid check digit"},
		{name: "numeric wrong first digit", in: "11.222.333/0001-91", wantErr: "has an invalid check digit"},
		{name: "numeric wrong second digit", in: "11.222.333/0001-82", wantErr: "has an invalid check digit"},
		{name: "alphanumeric wrong second digit", in: "AB1CD2EF000171", wantErr: "has an invalid check digit"},
		{name: "repeated ones", in: "11111111111111", wantErr: "has an invalid check digit"},
		{name: "all zeros", in: "00.000.000/0000-00", wantErr: "must not be all zeros"},
		{name: "letter in first check digit", in: "12ABC34501DEA5", wantErr: "must end with 2 numeric check digits"},
		{name: "letter in second check digit", in: "12abc34501de3e", wantErr: "must end with 2 numeric check digits"},
		{name: "too short", in: "1122233300018", wantErr: "must have 14 characters"},
		{name: "too long", in: "112223330001810", wantErr: "must have 14 characters"},
		{name: "empty", in: "", wantErr: "must have 14 characters"},
		{name: "underscore", in: "11_222_333/0001-81", wantErr: "must contain only letters, digits, '.', '/' and '-'"},
		{name: "inner space", in: "11 222 333 0001 81", wantErr: "must contain only letters, digits, '.', '/' and '-'"},
		{name: "non-ascii letter", in: "12ÁBC34501DE35", wantErr: "must contain only letters, digits, '.', '/' and '-'"},
		{name: "long s is not S", in: "12ABC34501DEſ5", wantErr: "must contain only letters, digits, '.', '/' and '-'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeCNPJ(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizeCNPJ(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestCNPJCheckDigitsIndependent recomputes the check digits of the valid
// vectors with a straightforward implementation of IN RFB 2.229/2024 that
// shares no code with the package.
func TestCNPJCheckDigitsIndependent(t *testing.T) {
	dv := func(base string) byte {
		weights := []int{2, 3, 4, 5, 6, 7, 8, 9}
		sum := 0
		for i := len(base) - 1; i >= 0; i-- {
			sum += (int(base[i]) - 48) * weights[(len(base)-1-i)%8]
		}
		if sum%11 < 2 {
			return '0'
		}
		return byte('0' + 11 - sum%11)
	}
	tests := []struct {
		name string
		base string
		want string
	}{
		{name: "rfb example", base: "12ABC34501DE", want: "35"},
		{name: "AB1CD2EF", base: "AB1CD2EF0001", want: "70"},
		{name: "Z9Y8X7W6", base: "Z9Y8X7W60001", want: "05"},
		{name: "PATIO2026XYZ", base: "PATIO2026XYZ", want: "06"},
		{name: "numeric 11222333", base: "112223330001", want: "81"},
		{name: "numeric 11444777", base: "114447770001", want: "61"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d1 := dv(tt.base)
			d2 := dv(tt.base + string(d1))
			if got := string([]byte{d1, d2}); got != tt.want {
				t.Errorf("check digits of %q = %q; want %q", tt.base, got, tt.want)
			}
		})
	}
}

// FuzzNormalizeCNPJ checks that NormalizeCNPJ never panics, returns "" with
// every error, and that whatever it accepts is well formed and is a fixed
// point: normalising the output again returns it unchanged.
func FuzzNormalizeCNPJ(f *testing.F) {
	for _, s := range []string{
		"12ABC34501DE35", "12.ABC.345/01DE-35", "12abc34501de35",
		"11.222.333/0001-81", "00000000000000", "12ABC34501DEA5",
		"AB1CD2EF000170", "", " ", "ſ", "12ABC34501DE3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeCNPJ(s)
		if err != nil {
			if got != "" {
				t.Errorf("NormalizeCNPJ(%q) = %q, %v; want empty result with error", s, got, err)
			}
			return
		}
		if len(got) != 14 || !isDigit(got[12]) || !isDigit(got[13]) {
			t.Errorf("NormalizeCNPJ(%q) = %q; want 12 of 0-9A-Z and 2 digits", s, got)
		}
		for i := 0; i < 12 && i < len(got); i++ {
			if !isDigit(got[i]) && !isUpper(got[i]) {
				t.Errorf("NormalizeCNPJ(%q) = %q; invalid character at %d", s, got, i)
			}
		}
		again, err := NormalizeCNPJ(got)
		if again != got || err != nil {
			t.Errorf("NormalizeCNPJ(%q) = %q, %v; want %q, <nil>", got, again, err, got)
		}
	})
}
