// Package dynamostore is the DynamoDB adapter of the domain's records (shared/patio): vehicles,
// clients, deals, activities and financial records, their lists, claims, alarms, backfill and the
// audit log, in the tables of template.yaml, through github.com/guregu/dynamo/v2.
//
// Storage shapes (attribute names, key strings, index attributes) live on unexported row structs and
// never leave this package. Uniqueness and cross-record rules are enforced with transactions and
// condition expressions, never read-then-write. See docs/storage.md for the design.
package dynamostore

import (
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
)

// Tables names the DynamoDB tables the store uses (storecore.Tables).
type Tables = storecore.Tables

// Store implements the domain's record stores on DynamoDB: the records (Vehicles, Clients, Deals,
// Activities, Financial), their claims, alarms and backfill, and the audit log. It is safe for
// concurrent use.
type Store struct {
	*core
}

// core is the records' share of the store: the clients and tables every part shares, and what
// the records' lists learn as they go.
type core struct {
	db *storecore.DB
	// indexed holds the partitions ("<table>\x00<team>") a list found complete, every record
	// with its whole family (see records.tally): they stay so, so they are not asked again.
	indexed sync.Map
}

// New returns a store on the given AWS configuration (storecore.New).
func New(cfg aws.Config, tables Tables) *Store { return On(storecore.New(cfg, tables)) }

// On returns the records' store on db, whose clients (and retry quota) it shares with the other
// parts built on it.
func On(db *storecore.DB) *Store { return &Store{&core{db: db}} }

// DB returns the clients and tables the store is built on, for the other parts of the store.
func (s *Store) DB() *storecore.DB { return s.db }
