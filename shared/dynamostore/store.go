// Package dynamostore is the DynamoDB adapter of the domain's records (shared/patio): vehicles,
// clients, deals, activities and financial records, their lists, claims, alarms, backfill and the
// audit log, in the tables of template.yaml, through github.com/guregu/dynamo/v2.
//
// Storage shapes (attribute names, key strings, index attributes) live on unexported row structs and
// never leave this package. Uniqueness and cross-record rules are enforced with transactions and
// condition expressions, never read-then-write. See docs/storage.md for the design.
package dynamostore

import (
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
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
	db    *storecore.DB
	lists lists.Engine
}

// New returns a store on the given AWS configuration (storecore.New). Its DB is for the other
// parts of the store, which then share its clients and retry quota.
func New(cfg aws.Config, tables Tables) *Store { return &Store{&core{db: storecore.New(cfg, tables)}} }

// DB returns the clients and tables the store is built on, for the other parts of the store.
func (s *Store) DB() *storecore.DB { return s.db }
