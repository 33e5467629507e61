package br

import (
	"errors"
	"strings"
)

var (
	errCNPJChars       = errors.New("must contain only letters, digits, '.', '/' and '-'")
	errCNPJLength      = errors.New("must have 14 characters")
	errCNPJCheckLetter = errors.New("must end with 2 numeric check digits")
	errCNPJZero        = errors.New("must not be all zeros")
)

// cnpjWeights are the check digit weights; the first check digit uses
// cnpjWeights[1:] over the 12 base characters and the second uses all 13
// over the base plus the first check digit.
var cnpjWeights = [13]int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}

// NormalizeCNPJ validates a CNPJ, numeric or alphanumeric, and returns its 14
// bare characters with letters in upper case.
//
// Surrounding white space is trimmed; '.', '/' and '-' are accepted anywhere
// as mask characters (so "12.ABC.345/01DE-35" and "12abc34501de35" are
// equivalent) and any other character is rejected. The result has 14
// characters: 12 from 0-9/A-Z followed by 2 numeric check digits.
//
// The check digits follow IN RFB 2.229/2024, which also covers every
// numeric CNPJ: each character is worth its ASCII code minus 48 ('0'..'9'
// are 0..9, 'A' is 17, ..., 'Z' is 42); the first digit uses weights
// 5,4,3,2,9,8,7,6,5,4,3,2 over the 12 base characters, the second uses
// 6,5,4,3,2,9,8,7,6,5,4,3,2 over those plus the first digit; each digit is
// 0 when sum mod 11 is below 2 and 11 minus the remainder otherwise.
// "00000000000000" is rejected.
func NormalizeCNPJ(s string) (string, error) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	b.Grow(14)
	for i := 0; i < len(s); i++ {
		c := toUpperASCII(s[i])
		switch {
		case isDigit(c) || isUpper(c):
			b.WriteByte(c)
		case c == '.' || c == '/' || c == '-':
		default:
			return "", errCNPJChars
		}
	}
	d := b.String()
	if len(d) != 14 {
		return "", errCNPJLength
	}
	if !isDigit(d[12]) || !isDigit(d[13]) {
		return "", errCNPJCheckLetter
	}
	if d == "00000000000000" {
		return "", errCNPJZero
	}
	if cnpjCheckDigit(d[:12]) != d[12] || cnpjCheckDigit(d[:13]) != d[13] {
		return "", errCheckDigit
	}
	return d, nil
}

// cnpjCheckDigit computes the next check digit of the 12 or 13 characters
// in d (digits or upper-case letters).
func cnpjCheckDigit(d string) byte {
	w := cnpjWeights[len(cnpjWeights)-len(d):]
	sum := 0
	for i := 0; i < len(d); i++ {
		sum += int(d[i]-'0') * w[i]
	}
	return mod11Digit(sum)
}
