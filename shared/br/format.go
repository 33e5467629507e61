package br

import "strings"

// FormatCPF writes a bare CPF (11 characters) as people read it: "529.982.247-25". Anything else
// is returned as it is.
func FormatCPF(cpf string) string {
	if len(cpf) != 11 {
		return cpf
	}
	return cpf[:3] + "." + cpf[3:6] + "." + cpf[6:9] + "-" + cpf[9:]
}

// FormatCNPJ writes a bare CNPJ (14 characters, the alphanumeric one too) as people read it:
// "12.ABC.345/01DE-35". Anything else is returned as it is.
func FormatCNPJ(cnpj string) string {
	if len(cnpj) != 14 {
		return cnpj
	}
	return cnpj[:2] + "." + cnpj[2:5] + "." + cnpj[5:8] + "/" + cnpj[8:12] + "-" + cnpj[12:]
}

// Mask hides all but the last four characters of a bare document, keeping its length:
// "52998224725" → "*******4725" (format it after: "***.***.*47-25").
func Mask(doc string) string {
	if len(doc) <= 4 {
		return doc
	}
	return strings.Repeat("*", len(doc)-4) + doc[len(doc)-4:]
}
