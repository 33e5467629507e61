// Command oag-roundtrip drives the API with the Go client openapi-generator generates from
// openapi.yaml, without edits (package patioclient, generated beside it): it creates a vehicle
// priced 1234567.89 and reads it back to the cent, lists two statuses, and reads a typed 422 with
// its message. It exits non-zero naming what went wrong. dev/genclients builds and runs it against
// a running API (PATIO_URL, PATIO_KEY).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	patioclient "oagroundtrip/patioclient"
)

func main() {
	if err := run(os.Getenv("PATIO_URL"), os.Getenv("PATIO_KEY")); err != nil {
		fmt.Fprintln(os.Stderr, "oag-roundtrip:", err)
		os.Exit(1)
	}
}

func run(url, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := patioclient.NewConfiguration()
	cfg.Servers = patioclient.ServerConfigurations{{URL: url}}
	cfg.AddDefaultHeader("Authorization", "Bearer "+key)
	c := patioclient.NewAPIClient(cfg)

	const price = 1234567.89
	plate := "OAG1A23"
	in := patioclient.NewVehicleCreate("Toyota", "Corolla", price)
	in.SetPlate(plate)
	created, _, err := c.VehiclesAPI.CreateVehicle(ctx).VehicleCreate(*in).Execute()
	if err != nil {
		return fmt.Errorf("create: %w", describe(err))
	}
	if created.Data.Price != price {
		return fmt.Errorf("create: price = %v; want %v", created.Data.Price, price)
	}
	got, _, err := c.VehiclesAPI.GetVehicle(ctx, created.Data.Id).Execute()
	if err != nil {
		return fmt.Errorf("get: %w", describe(err))
	}
	if got.Data.Price != price {
		return fmt.Errorf("get: price = %v; want %v", got.Data.Price, price)
	}

	other := patioclient.NewVehicleCreate("Fiat", "Uno", 30000.5)
	other.SetStatus("reservado")
	if _, _, err := c.VehiclesAPI.CreateVehicle(ctx).VehicleCreate(*other).Execute(); err != nil {
		return fmt.Errorf("create reserved: %w", describe(err))
	}
	list, _, err := c.VehiclesAPI.ListVehicles(ctx).
		Status([]patioclient.VehicleStatus{patioclient.VehicleStatusAtivo, patioclient.VehicleStatusReservado}).Execute()
	if err != nil {
		return fmt.Errorf("list: %w", describe(err))
	}
	seen := map[patioclient.VehicleStatus]bool{}
	for _, v := range list.Data {
		seen[v.Status] = true
	}
	if !seen[patioclient.VehicleStatusAtivo] || !seen[patioclient.VehicleStatusReservado] {
		return fmt.Errorf("list status=ativo,reservado: statuses %v; want both", seen)
	}

	dup := patioclient.NewVehicleCreate("Fiat", "Uno", 1)
	dup.SetPlate(plate)
	_, res, err := c.VehiclesAPI.CreateVehicle(ctx).VehicleCreate(*dup).Execute()
	var apiErr *patioclient.GenericOpenAPIError
	if !errors.As(err, &apiErr) || res == nil || res.StatusCode != 422 {
		return fmt.Errorf("duplicate: %v; want a 422", err)
	}
	typed, ok := apiErr.Model().(patioclient.UnprocessableError)
	if !ok || typed.Error.Code != "DUPLICATE_ENTRY" || typed.Error.Message == "" {
		return fmt.Errorf("duplicate: model %T %+v; want a typed DUPLICATE_ENTRY with a message", apiErr.Model(), apiErr.Model())
	}
	fmt.Printf("oag-roundtrip: price %.2f read back exactly; 422 %s: %s\n", got.Data.Price, typed.Error.Code, typed.Error.Message)
	return nil
}

// describe adds the answer's body to a client error.
func describe(err error) error {
	var apiErr *patioclient.GenericOpenAPIError
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%w: %s", err, apiErr.Body())
	}
	return err
}
