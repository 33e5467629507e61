// Compiled (tsc --strict --noEmit) against the types openapi-typescript generates from
// openapi.yaml (./schema.ts): optional create fields stay optional, money is a number, nullable
// enums are their components or null, and every error answer has a typed code and message.
import type { components, paths } from "./schema";

type Schemas = components["schemas"];

// Only the required fields: phase and status have server-side defaults, and are optional.
const vehicle: Schemas["VehicleCreate"] = { brand: "Toyota", model: "Corolla", price: 1234567.89 };
const deal: Schemas["DealCreate"] = { title: "Corolla for Maria", client_id: "01963b6e-4f1a-7c2d-9e8f-0a1b2c3d4e5f" };
const client: Schemas["ClientCreate"] = { type: "individual", name: "Maria", cpf: "52998224725" };

const price: number = vehicle.price;
const fuel: Schemas["Vehicle"]["fuel"] = null;
const fuelSet: Schemas["Vehicle"]["fuel"] = "flex";

type Created = paths["/api/v1/vehicles"]["post"]["responses"];
function explain(e: Created[422]["content"]["application/json"]): string {
  const code: "VALIDATION_ERROR" | "DUPLICATE_ENTRY" = e.error.code;
  return code + ": " + e.error.message;
}
function badRequest(e: Created[400]["content"]["application/json"]): string {
  return e.error.message + (e.error.details ?? []).map((d) => d.field).join(",");
}

export { vehicle, deal, client, price, fuel, fuelSet, explain, badRequest };
