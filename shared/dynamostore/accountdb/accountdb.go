// Package accountdb stores the accounts on DynamoDB, in AccountsTable: the teams and their API keys
// (Accounts), the request counters of the rate limiter (Counters), the teams' members (Members)
// and the console's sessions, pending sign-ins and one-time form tokens (Sessions).
//
// Storage shapes live on unexported row structs; see docs/storage.md ("Accounts", "The console").
package accountdb

import (
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
)

// part is what each of the package's stores holds: the store's clients and tables.
type part struct{ db *storecore.DB }

// accounts is AccountsTable, where every row of the package lives.
func (p part) accounts() dynamo.Table { return p.db.Dynamo.Table(p.db.Tables.Accounts) }

// Accounts stores the teams and their API keys: patio.KeyStore, patio.KeyAdminStore and
// patio.TeamStore.
type Accounts struct{ part }

// Counters stores the teams' request counters: patio.RateCounter.
type Counters struct{ part }

// Members stores the teams' members: patio.MemberStore.
type Members struct{ part }

// Sessions stores the console's sessions (read with the membership and team they load), pending
// sign-ins and one-time form tokens.
type Sessions struct{ part }

// NewAccounts returns the teams and keys stored on db.
func NewAccounts(db *storecore.DB) *Accounts { return &Accounts{part{db}} }

// NewCounters returns the request counters stored on db.
func NewCounters(db *storecore.DB) *Counters { return &Counters{part{db}} }

// NewMembers returns the members stored on db.
func NewMembers(db *storecore.DB) *Members { return &Members{part{db}} }

// NewSessions returns the console's sessions stored on db.
func NewSessions(db *storecore.DB) *Sessions { return &Sessions{part{db}} }
