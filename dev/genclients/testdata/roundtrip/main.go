// Command roundtrip drives the API with the Go client oapi-codegen generates from openapi.yaml,
// without edits: it creates a vehicle priced 1234567.89 and reads it back to the cent, lists two
// statuses, and reads a typed 422 with its message. It exits non-zero naming what went wrong.
// dev/genclients builds and runs it against a running API (PATIO_URL, PATIO_KEY).
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"roundtrip/patioclient"
)

func main() {
	if err := run(os.Getenv("PATIO_URL"), os.Getenv("PATIO_KEY")); err != nil {
		fmt.Fprintln(os.Stderr, "roundtrip:", err)
		os.Exit(1)
	}
	fmt.Println("roundtrip: ok")
}

func run(url, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := patioclient.NewClientWithResponses(url, patioclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		return err
	}

	const price = 1234567.89
	plate := "RTP1A23"
	created, err := c.CreateVehicleWithResponse(ctx, nil, patioclient.VehicleCreate{
		Brand: "Toyota", Model: "Corolla", Price: price, Plate: &plate,
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if created.JSON201 == nil {
		return fmt.Errorf("create: status %d, body %s", created.StatusCode(), created.Body)
	}
	if got := created.JSON201.Data.Price; got != price {
		return fmt.Errorf("create: price = %v; want %v", got, price)
	}
	id := created.JSON201.Data.Id

	got, err := c.GetVehicleWithResponse(ctx, id, nil)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if got.JSON200 == nil {
		return fmt.Errorf("get: status %d, body %s", got.StatusCode(), got.Body)
	}
	if p := got.JSON200.Data.Price; p != price {
		return fmt.Errorf("get: price = %v; want %v", p, price)
	}

	reserved := patioclient.VehicleCreateStatus("reservado")
	other, err := c.CreateVehicleWithResponse(ctx, nil, patioclient.VehicleCreate{
		Brand: "Fiat", Model: "Uno", Price: 30000.5, Status: &reserved,
	})
	if err != nil || other.JSON201 == nil {
		return fmt.Errorf("create reserved: %v (status %d, body %s)", err, other.StatusCode(), other.Body)
	}
	statuses := patioclient.VehicleStatusFilter{patioclient.VehicleStatusAtivo, patioclient.VehicleStatusReservado}
	list, err := c.ListVehiclesWithResponse(ctx, &patioclient.ListVehiclesParams{Status: &statuses})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if list.JSON200 == nil {
		return fmt.Errorf("list: status %d, body %s", list.StatusCode(), list.Body)
	}
	seen := map[patioclient.VehicleStatus]bool{}
	for _, v := range list.JSON200.Data {
		seen[v.Status] = true
	}
	if !seen[patioclient.VehicleStatusAtivo] || !seen[patioclient.VehicleStatusReservado] {
		return fmt.Errorf("list status=ativo,reservado: statuses %v; want both", seen)
	}

	dup, err := c.CreateVehicleWithResponse(ctx, nil, patioclient.VehicleCreate{
		Brand: "Fiat", Model: "Uno", Price: 1, Plate: &plate,
	})
	if err != nil {
		return fmt.Errorf("duplicate: %w", err)
	}
	if dup.JSON422 == nil {
		return fmt.Errorf("duplicate: status %d, body %s; want a typed 422", dup.StatusCode(), dup.Body)
	}
	if dup.JSON422.Error.Code != patioclient.UnprocessableErrorErrorCodeDUPLICATEENTRY || dup.JSON422.Error.Message == "" {
		return fmt.Errorf("duplicate: error %+v; want DUPLICATE_ENTRY with a message", dup.JSON422.Error)
	}
	fmt.Printf("roundtrip: price %.2f read back exactly; 422 %s: %s\n", got.JSON200.Data.Price,
		dup.JSON422.Error.Code, dup.JSON422.Error.Message)
	return nil
}
