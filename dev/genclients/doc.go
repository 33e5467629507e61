// Package genclients checks openapi.yaml with the code generators integrators use: its test
// generates a Go client with oapi-codegen and TypeScript types with openapi-typescript, compiles
// both without edits, and runs a round trip with the Go client against the API on DynamoDB Local
// (testdata/roundtrip). Development only; it holds no code of its own.
package genclients
