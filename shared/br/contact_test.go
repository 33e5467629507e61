package br

import "testing"

func TestNormalizePhone(t *testing.T) {
	const (
		errChars   = "must contain only digits, spaces, '(', ')', '-', '.' and a leading '+'"
		errLength  = "must have 10 or 11 digits including the area code"
		errDDD     = "has an invalid area code"
		errMobile  = "must start with 9 after the area code when it has 11 digits"
		errE164    = "must have 8 to 15 digits after '+'"
		errCountry = "has an invalid country code"
	)
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "mobile masked", in: "(11) 98765-4321", want: "+5511987654321"},
		{name: "landline masked", in: "(11) 3456-7890", want: "+551134567890"},
		{name: "mobile bare", in: "11987654321", want: "+5511987654321"},
		{name: "e164 mobile", in: "+5511987654321", want: "+5511987654321"},
		{name: "plus 55 masked", in: " +55 (21) 2345.6789 ", want: "+552123456789"},
		{name: "55 without plus mobile", in: "55 11 98765 4321", want: "+5511987654321"},
		{name: "55 without plus landline", in: "554133334444", want: "+554133334444"},
		{name: "national DDD 55", in: "(55) 3222-1111", want: "+555532221111"},
		{name: "DDD 99", in: "99 99999-9999", want: "+5599999999999"},
		{name: "foreign us", in: "+1 (415) 555-2671", want: "+14155552671"},
		{name: "foreign uk", in: "+44 20 7946 0958", want: "+442079460958"},
		{name: "foreign 8 digits", in: "+3531234567", want: "+3531234567"},
		{name: "foreign 15 digits", in: "+123456789012345", want: "+123456789012345"},
		{name: "foreign 7 digits", in: "+1234567", wantErr: errE164},
		{name: "foreign 16 digits", in: "+1234567890123456", wantErr: errE164},
		{name: "country code zero", in: "+0123456789", wantErr: errCountry},
		{name: "plus 55 short", in: "+55 11 8765-432", wantErr: errLength},
		{name: "plus 55 long", in: "+55 11 98765-43210", wantErr: errLength},
		{name: "DDD with zero first", in: "(01) 98765-4321", wantErr: errDDD},
		{name: "DDD 10", in: "(10) 3456-7890", wantErr: errDDD},
		{name: "DDD 20 with 55", in: "+55 20 98765-4321", wantErr: errDDD},
		{name: "11 digits not mobile", in: "(11) 88765-4321", wantErr: errMobile},
		{name: "trunk prefix", in: "0 11 98765-4321", wantErr: errLength},
		{name: "12 digits not 55", in: "441134567890", wantErr: errLength},
		{name: "9 digits", in: "119876543", wantErr: errLength},
		{name: "14 digits", in: "55119876543210", wantErr: errLength},
		{name: "empty", in: "", wantErr: errLength},
		{name: "only plus", in: "+", wantErr: errE164},
		{name: "plus in middle", in: "11+987654321", wantErr: errChars},
		{name: "double plus", in: "++5511987654321", wantErr: errChars},
		{name: "letters", in: "(11) 9876-ABCD", wantErr: errChars},
		{name: "slash", in: "11/98765-4321", wantErr: errChars},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizePhone(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizePhone(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestNormalizeCEP(t *testing.T) {
	const errCEP = "must have 8 digits, optionally as 00000-000"
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "masked", in: "01310-100", want: "01310100"},
		{name: "bare", in: "01310100", want: "01310100"},
		{name: "spaces", in: " 01310-100 ", want: "01310100"},
		{name: "hyphen misplaced", in: "0131-0100", wantErr: errCEP},
		{name: "dot mask", in: "01.310-100", wantErr: errCEP},
		{name: "hyphen only", in: "01310100-", wantErr: errCEP},
		{name: "seven digits", in: "0131010", wantErr: errCEP},
		{name: "nine digits", in: "013101000", wantErr: errCEP},
		{name: "letter", in: "01310-10A", wantErr: errCEP},
		{name: "empty", in: "", wantErr: errCEP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeCEP(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizeCEP(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestNormalizeUF(t *testing.T) {
	all := []string{
		"AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA",
		"PB", "PR", "PE", "PI", "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO",
	}
	if len(all) != 27 || len(ufs) != 27 {
		t.Fatalf("len(all) = %d, len(ufs) = %d; want 27", len(all), len(ufs))
	}
	type test struct {
		name    string
		in      string
		want    string
		wantErr string
	}
	var tests []test
	for _, uf := range all {
		tests = append(tests, test{name: uf, in: uf, want: uf})
	}
	tests = append(tests,
		test{name: "lowercase", in: "sp", want: "SP"},
		test{name: "mixed case spaces", in: " rJ ", want: "RJ"},
		test{name: "unknown", in: "XX", wantErr: "must be a valid state code"},
		test{name: "BR is not a UF", in: "BR", wantErr: "must be a valid state code"},
		test{name: "name", in: "São Paulo", wantErr: "must be a valid state code"},
		test{name: "one letter", in: "S", wantErr: "must be a valid state code"},
		test{name: "empty", in: "", wantErr: "must be a valid state code"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeUF(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizeUF(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
			if valid, want := ValidUF(tt.in), tt.wantErr == ""; valid != want {
				t.Errorf("ValidUF(%q) = %v; want %v", tt.in, valid, want)
			}
		})
	}
}

func TestNormalizeStateRegistration(t *testing.T) {
	const (
		errChars  = "must contain only digits or be ISENTO"
		errLength = "must have 2 to 14 digits or be ISENTO"
	)
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "sp masked", in: "110.042.490.114", want: "110042490114"},
		{name: "slash and hyphen", in: "062/3073-12", want: "062307312"},
		{name: "spaces", in: " 12 345 678 ", want: "12345678"},
		{name: "two digits", in: "12", want: "12"},
		{name: "fourteen digits", in: "1234567890123-4", want: "12345678901234"},
		{name: "isento upper", in: "ISENTO", want: "ISENTO"},
		{name: "isento lower spaced", in: "  isento ", want: "ISENTO"},
		{name: "isento mixed", in: "Isento", want: "ISENTO"},
		{name: "one digit", in: "1", wantErr: errLength},
		{name: "fifteen digits", in: "123456789012345", wantErr: errLength},
		{name: "empty", in: "", wantErr: errLength},
		{name: "only mask", in: "./-", wantErr: errLength},
		{name: "letter", in: "P-01100424.3/002", wantErr: errChars},
		{name: "isenta", in: "ISENTA", wantErr: errChars},
		{name: "underscore", in: "110_042", wantErr: errChars},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeStateRegistration(tt.in)
			if got != tt.want || errString(err) != tt.wantErr {
				t.Errorf("NormalizeStateRegistration(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
