// Package br validates and normalises Brazilian identifiers used by the
// dealership API: CPF, CNPJ (including the alphanumeric CNPJ of IN RFB
// 2.229/2024), vehicle plates (old and Mercosul), RENAVAM, VIN, phone
// numbers, CEP, UF codes and inscrição estadual.
//
// Every Normalize*/Validate* function trims surrounding white space, accepts
// the usual mask characters for its identifier and returns the canonical,
// unmasked value. On failure it returns the empty string and an error whose
// message is a short lowercase phrase without the field name (for example
// "must have 11 digits"), so callers can prefix it: "cpf " + err.Error().
// The errors are plain values; the package exports no sentinel errors.
//
// Only ASCII letters and digits are ever accepted; the package uses the
// standard library only and is safe for concurrent use.
package br
