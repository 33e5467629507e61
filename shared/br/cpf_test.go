package br

import "testing"

// CPF vectors. Check digits for 529.982.247-25:
//
//	first:  5*10+2*9+9*8+9*7+8*6+2*5+2*4+4*3+7*2 = 295; 295 % 11 = 9 -> 11-9 = 2
//	second: 5*11+2*10+9*9+9*8+8*7+2*6+2*5+4*4+7*3+2*2 = 347; 347 % 11 = 6 -> 11-6 = 5
//
// and for 111.444.777-35:
//
//	first:  1*10+1*9+1*8+4*7+4*6+4*5+7*4+7*3+7*2 = 162; 162 % 11 = 8 -> 3
//	second: 1*11+1*10+1*9+4*8+4*7+4*6+7*5+7*4+7*3+3*2 = 204; 204 % 11 = 6 -> 5
func TestNormalizeCPF(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "masked", in: "529.982.247-25", want: "52998224725"},
		{name: "bare", in: "52998224725", want: "52998224725"},
		{name: "surrounding spaces", in: "  111.444.777-35\t", want: "11144477735"},
		{name: "mask anywhere", in: "1-1.1444777.3-5", want: "11144477735"},
		{name: "first digit remainder below 2", in: "123.456.789-09", want: "12345678909"},
		{name: "wrong first check digit", in: "529.982.247-35", wantErr: "has an invalid check digit"},
		{name: "wrong second check digit", in: "529.982.247-24", wantErr: "has an invalid check digit"},
		{name: "all zeros", in: "000.000.000-00", wantErr: "must not have all digits equal"},
		{name: "all nines", in: "99999999999", wantErr: "must not have all digits equal"},
		{name: "all ones", in: "111.111.111-11", wantErr: "must not have all digits equal"},
		{name: "too short", in: "5299822472", wantErr: "must have 11 digits"},
		{name: "too long", in: "529982247250", wantErr: "must have 11 digits"},
		{name: "empty", in: "", wantErr: "must have 11 digits"},
		{name: "only mask", in: "..--", wantErr: "must have 11 digits"},
		{name: "slash not allowed", in: "529.982.247/25", wantErr: "must contain only digits, '.' and '-'"},
		{name: "inner space", in: "529 982 247 25", wantErr: "must contain only digits, '.' and '-'"},
		{name: "letter", in: "52998224A25", wantErr: "must contain only digits, '.' and '-'"},
		{name: "non-ascii digit", in: "５2998224725", wantErr: "must contain only digits, '.' and '-'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeCPF(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizeCPF(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// errString returns err.Error(), or "" for a nil error.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFormatAndMask(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatCPF("52998224725"), "529.982.247-25"},
		{FormatCNPJ("12ABC34501DE35"), "12.ABC.345/01DE-35"},
		{FormatCPF(Mask("52998224725")), "***.***.*47-25"},
		{FormatCNPJ(Mask("12ABC34501DE35")), "**.***.***/**DE-35"},
		{FormatCPF("123"), "123"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q; want %q", tc.got, tc.want)
		}
	}
}
