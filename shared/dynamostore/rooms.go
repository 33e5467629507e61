package dynamostore

// The store's parts: each holds the store's core (its DynamoDB clients and table names) and serves
// one group of the domain's interfaces. Store's accessors hand them out, a new one-pointer value at
// each call, all on the same core; none is embedded in Store, so Store's methods stay its own.

// Webhooks stores the webhooks, their gates (the delivery pace, warnings and last success) and
// reads a delivery group at once (LoadGroup): webhook.Store's and delivery.Store's webhook half.
type Webhooks struct{ *core }

// DeliveryLog stores the webhooks' deliveries, their lists and their attempt logs (the delivery log
// of Tables.Deliveries): webhook.Store's and delivery.Store's delivery half, and
// delivery.SweepStore.
type DeliveryLog struct{ *core }

// Accounts stores the teams, their API keys and their request counters: patio.KeyStore,
// patio.KeyAdminStore, patio.TeamStore and patio.RateCounter.
type Accounts struct{ *core }

// People stores the teams' members and the console's sessions, pending sign-ins and one-time form
// tokens: patio.MemberStore and console.Store.
type People struct{ *core }

// Webhooks returns the store's webhooks.
func (s *Store) Webhooks() *Webhooks { return &Webhooks{s.core} }

// DeliveryLog returns the store's webhook deliveries.
func (s *Store) DeliveryLog() *DeliveryLog { return &DeliveryLog{s.core} }

// Accounts returns the store's teams, API keys and request counters.
func (s *Store) Accounts() *Accounts { return &Accounts{s.core} }

// People returns the store's members and console sessions.
func (s *Store) People() *People { return &People{s.core} }
