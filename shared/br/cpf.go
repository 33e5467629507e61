package br

import (
	"errors"
	"strings"
)

var (
	errCPFChars    = errors.New("must contain only digits, '.' and '-'")
	errCPFLength   = errors.New("must have 11 digits")
	errCPFRepeated = errors.New("must not have all digits equal")
	errCheckDigit  = errors.New("has an invalid check digit")
)

// NormalizeCPF validates a CPF and returns its 11 bare digits.
//
// Surrounding white space is trimmed; '.' and '-' are accepted anywhere as
// mask characters (so "529.982.247-25" and "52998224725" are equivalent) and
// any other character is rejected. The result must have exactly 11 digits,
// must not be one of the ten repeated-digit numbers (00000000000 through
// 99999999999) and both mod-11 check digits must match.
func NormalizeCPF(s string) (string, error) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	b.Grow(11)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			b.WriteByte(c)
		case c == '.' || c == '-':
		default:
			return "", errCPFChars
		}
	}
	d := b.String()
	if len(d) != 11 {
		return "", errCPFLength
	}
	if strings.Count(d, d[:1]) == 11 {
		return "", errCPFRepeated
	}
	if cpfCheckDigit(d[:9]) != d[9] || cpfCheckDigit(d[:10]) != d[10] {
		return "", errCheckDigit
	}
	return d, nil
}

// cpfCheckDigit computes the next CPF check digit of the 9 or 10 digits in
// d, with weights len(d)+1 down to 2.
func cpfCheckDigit(d string) byte {
	sum := 0
	w := len(d) + 1
	for i := 0; i < len(d); i++ {
		sum += int(d[i]-'0') * w
		w--
	}
	return mod11Digit(sum)
}
