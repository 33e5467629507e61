package br

import (
	"errors"
	"strings"
)

var (
	errPhoneChars   = errors.New("must contain only digits, spaces, '(', ')', '-', '.' and a leading '+'")
	errPhoneLength  = errors.New("must have 10 or 11 digits including the area code")
	errPhoneDDD     = errors.New("has an invalid area code")
	errPhoneMobile  = errors.New("must start with 9 after the area code when it has 11 digits")
	errPhoneE164    = errors.New("must have 8 to 15 digits after '+'")
	errPhoneCountry = errors.New("has an invalid country code")
	errCEP          = errors.New("must have 8 digits, optionally as 00000-000")
	errUF           = errors.New("must be a valid state code")
	errIEChars      = errors.New("must contain only digits or be ISENTO")
	errIELength     = errors.New("must have 2 to 14 digits or be ISENTO")
)

// NormalizePhone validates a phone number and returns it in E.164 form.
//
// Surrounding white space is trimmed and the mask characters space, '(',
// ')', '-' and '.' are ignored anywhere; a '+' is only allowed as the first
// character. A Brazilian number normalises to "+55" followed by the 2-digit
// area code (DDD, both digits 1-9) and either 8 digits (landline) or 9
// digits starting with 9 (mobile). Accepted inputs:
//
//   - "+55" followed by 10 or 11 national digits: Brazilian;
//   - '+' with another country code and 8 to 15 digits in total: returned
//     as '+' followed by the digits, with no further validation;
//   - no '+' and 10 or 11 digits: Brazilian national number;
//   - no '+' and 12 or 13 digits starting with 55: Brazilian with country
//     code.
//
// Anything else is rejected. Trunk ("0") and carrier prefixes are not
// accepted.
func NormalizePhone(s string) (string, error) {
	s = strings.TrimSpace(s)
	plus := strings.HasPrefix(s, "+")
	if plus {
		s = s[1:]
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			b.WriteByte(c)
		case c == ' ' || c == '(' || c == ')' || c == '-' || c == '.':
		default:
			return "", errPhoneChars
		}
	}
	d := b.String()
	switch {
	case plus && strings.HasPrefix(d, "55"):
		return brazilianPhone(d[2:])
	case plus:
		if len(d) < 8 || len(d) > 15 {
			return "", errPhoneE164
		}
		if d[0] == '0' {
			return "", errPhoneCountry
		}
		return "+" + d, nil
	case len(d) == 12 || len(d) == 13:
		if !strings.HasPrefix(d, "55") {
			return "", errPhoneLength
		}
		return brazilianPhone(d[2:])
	default:
		return brazilianPhone(d)
	}
}

// brazilianPhone validates the national part (DDD + subscriber) of a
// Brazilian number, given as digits only, and returns it in E.164.
func brazilianPhone(d string) (string, error) {
	if len(d) != 10 && len(d) != 11 {
		return "", errPhoneLength
	}
	if d[0] == '0' || d[1] == '0' {
		return "", errPhoneDDD
	}
	if len(d) == 11 && d[2] != '9' {
		return "", errPhoneMobile
	}
	return "+55" + d, nil
}

// NormalizeCEP validates a CEP (postal code) and returns its 8 bare digits.
//
// Surrounding white space is trimmed. The input must be 8 digits, or 5
// digits, '-' and 3 digits ("01310-100"); no other mask is accepted.
func NormalizeCEP(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) == 9 && s[5] == '-' {
		s = s[:5] + s[6:]
	}
	if len(s) != 8 || !allDigits(s) {
		return "", errCEP
	}
	return s, nil
}

// ufs is the set of the 27 federative unit codes (26 states and DF).
var ufs = map[string]bool{
	"AC": true, "AL": true, "AP": true, "AM": true, "BA": true, "CE": true,
	"DF": true, "ES": true, "GO": true, "MA": true, "MT": true, "MS": true,
	"MG": true, "PA": true, "PB": true, "PR": true, "PE": true, "PI": true,
	"RJ": true, "RN": true, "RS": true, "RO": true, "RR": true, "SC": true,
	"SP": true, "SE": true, "TO": true,
}

// ValidUF reports whether s is one of the 27 UF codes (AC, AL, AP, AM, BA,
// CE, DF, ES, GO, MA, MT, MS, MG, PA, PB, PR, PE, PI, RJ, RN, RS, RO, RR, SC,
// SP, SE, TO) in any letter case, ignoring surrounding white space. It is
// equivalent to NormalizeUF returning a nil error.
func ValidUF(s string) bool {
	_, err := NormalizeUF(s)
	return err == nil
}

// NormalizeUF validates a UF code (state or Distrito Federal) and returns it
// in upper case. Surrounding white space is trimmed and any letter case is
// accepted; see ValidUF for the list of codes.
func NormalizeUF(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) != 2 {
		return "", errUF
	}
	u := string([]byte{toUpperASCII(s[0]), toUpperASCII(s[1])})
	if !ufs[u] {
		return "", errUF
	}
	return u, nil
}

// NormalizeStateRegistration validates an inscrição estadual and returns
// either its bare digits or "ISENTO".
//
// Surrounding white space is trimmed and the mask characters '.', '-', '/'
// and space are removed wherever they appear. What remains must be 2 to 14 digits, or the word ISENTO (exempt)
// in any letter case, which is returned as "ISENTO". The state-specific
// check digit algorithms are not verified.
func NormalizeStateRegistration(s string) (string, error) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.', '-', '/', ' ':
		default:
			b.WriteByte(toUpperASCII(c))
		}
	}
	d := b.String()
	if d == "ISENTO" {
		return d, nil
	}
	if !allDigits(d) {
		if d == "" {
			return "", errIELength
		}
		return "", errIEChars
	}
	if len(d) < 2 || len(d) > 14 {
		return "", errIELength
	}
	return d, nil
}
