package br

import (
	"errors"
	"strings"
)

var (
	errPlateFormat = errors.New("must be in the format ABC1234 or ABC1D23")
	errRENAVAM     = errors.New("must have 11 digits")
	errVINLength   = errors.New("must have 17 characters")
	errVINChars    = errors.New("must contain only digits and letters other than I, O and Q")
)

// NormalizePlate validates a Brazilian vehicle plate and returns it in upper
// case without a hyphen, keeping the spelling it was given in.
//
// Surrounding white space is trimmed and letters may be in any case. Two
// spellings are accepted: the old format LLLDDDD ("ABC1234") and the
// Mercosul format LLLDLDD ("ABC1D23"), where L is a letter A-Z and D a digit.
// A single optional hyphen is allowed right after the three letters in
// either format ("ABC-1234", "ABC-1D23"); no other separator is accepted.
// An old plate is not converted to Mercosul; use PlateKey to compare plates.
func NormalizePlate(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) == 8 && s[3] == '-' {
		s = s[:3] + s[4:]
	}
	if len(s) != 7 {
		return "", errPlateFormat
	}
	var p [7]byte
	for i := 0; i < 7; i++ {
		p[i] = toUpperASCII(s[i])
	}
	for i, c := range p {
		ok := false
		switch i {
		case 0, 1, 2:
			ok = isUpper(c)
		case 4:
			ok = isDigit(c) || isUpper(c)
		default:
			ok = isDigit(c)
		}
		if !ok {
			return "", errPlateFormat
		}
	}
	return string(p[:]), nil
}

// PlateKey returns the canonical key of a plate for uniqueness checks: its
// Mercosul spelling. The fifth character of an old-format plate, a digit d,
// becomes the letter 'A'+d, so "ABC1234" and "ABC1C34" share the key
// "ABC1C34".
//
// PlateKey is meant for the output of NormalizePlate, but it normalises its
// argument first, so any input NormalizePlate accepts yields the same key as
// its normalised form. Input NormalizePlate rejects is returned unchanged.
func PlateKey(normalized string) string {
	p, err := NormalizePlate(normalized)
	if err != nil {
		return normalized
	}
	if isDigit(p[4]) {
		return p[:4] + string('A'+p[4]-'0') + p[5:]
	}
	return p
}

// OtherPlate returns the other spelling of a plate: the Mercosul one of an old-format plate
// (the fifth character's digit d becomes the letter 'A'+d: "ABC1234" → "ABC1C34"), the old one
// of a Mercosul plate whose fifth character is a letter from A to J ("ABC1C34" → "ABC1234").
// ok is false for a Mercosul plate with a later letter there, which has no old spelling, and for
// input NormalizePlate rejects. The input is normalised first; the result is in upper case
// without a hyphen.
func OtherPlate(plate string) (other string, ok bool) {
	p, err := NormalizePlate(plate)
	if err != nil {
		return "", false
	}
	switch c := p[4]; {
	case isDigit(c):
		return p[:4] + string('A'+c-'0') + p[5:], true
	case c <= 'J':
		return p[:4] + string('0'+c-'A') + p[5:], true
	}
	return "", false
}

// renavamWeights apply to the first 10 digits of a RENAVAM, left to right.
var renavamWeights = [10]int{3, 2, 9, 8, 7, 6, 5, 4, 3, 2}

// ValidateRENAVAM validates a RENAVAM and returns its 11 digits.
//
// Surrounding white space is trimmed; otherwise the input must be exactly 11
// digits, without mask or separators (older 9-digit numbers must be
// left-padded with zeros by the caller). The check digit is the 11th digit:
// the first 10 digits are weighted 3,2,9,8,7,6,5,4,3,2, the sum is
// multiplied by 10 and taken mod 11, and a result of 10 becomes 0.
func ValidateRENAVAM(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) != 11 || !allDigits(s) {
		return "", errRENAVAM
	}
	sum := 0
	for i, w := range renavamWeights {
		sum += int(s[i]-'0') * w
	}
	d := sum * 10 % 11
	if d == 10 {
		d = 0
	}
	if byte('0'+d) != s[10] {
		return "", errCheckDigit
	}
	return s, nil
}

// ValidateVIN validates a vehicle identification number (chassi) and
// returns it in upper case.
//
// Surrounding white space is trimmed and letters may be in any case. The
// result must have exactly 17 characters from 0-9 and A-Z excluding I, O
// and Q. The ISO 3779 check digit (position 9) is not verified, since it is
// not mandatory for vehicles built outside North America.
func ValidateVIN(s string) (string, error) {
	s = strings.TrimSpace(s)
	v := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := toUpperASCII(s[i])
		if !isDigit(c) && (!isUpper(c) || c == 'I' || c == 'O' || c == 'Q') {
			return "", errVINChars
		}
		v[i] = c
	}
	if len(v) != 17 {
		return "", errVINLength
	}
	return string(v), nil
}
