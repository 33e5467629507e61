package br

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// toUpperASCII maps 'a'..'z' to 'A'..'Z' and leaves every other byte as is.
func toUpperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// allDigits reports whether s is non-empty and made only of '0'..'9'.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// mod11Digit turns a weighted sum into a check digit with the rule shared
// by CPF and CNPJ: remainder < 2 gives 0, otherwise 11 - remainder.
func mod11Digit(sum int) byte {
	r := sum % 11
	if r < 2 {
		return '0'
	}
	return byte('0' + 11 - r)
}
