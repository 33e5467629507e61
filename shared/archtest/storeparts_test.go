package archtest

import (
	"slices"
	"strings"
	"testing"
)

// storeParts are the DynamoDB store's parts, one per group of ports they serve: the records (and
// their lists), the webhooks with their deliveries, the accounts. Each stands on storeBase alone
// and imports no other part, so a part can be read, changed or moved without the others.
var storeParts = []string{"shared/dynamostore", "shared/dynamostore/webhookdb", "shared/dynamostore/accountdb"}

// storeBase is what every part may import of the store: the clients and transactions (storecore),
// the storage format (storeformat) and the readers of previous formats (migration).
var storeBase = []string{"shared/dynamostore/storecore", "shared/dynamostore/storeformat", "shared/dynamostore/migration"}

// storeEngine is a package of the store that one part stands on: its import path, the part,
// and the store's packages it imports itself.
type storeEngine struct {
	path, part string
	base       []string
}

// storeEngines are the store's packages that serve one part's reads beside it, each with the
// part that stands on it and what it stands on itself: the list engine plans and serves the
// records' lists from the storage format alone.
var storeEngines = []storeEngine{
	{"shared/dynamostore/lists", "shared/dynamostore", []string{"shared/dynamostore/storecore", "shared/dynamostore/storeformat"}},
}

func TestStorePartsStandApart(t *testing.T) {
	for _, part := range storeParts {
		t.Run(part, func(t *testing.T) {
			pkgs := list(t, module+part)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Fatalf("go list %s = %+v; want the store's part (update archtest if it moved)", part, pkgs)
			}
			for _, dep := range pkgs[0].Deps {
				rel, ok := strings.CutPrefix(dep, module)
				if !ok || !(rel == "shared/dynamostore" || strings.HasPrefix(rel, "shared/dynamostore/")) {
					continue
				}
				if !slices.Contains(storeBase, rel) && !slices.ContainsFunc(storeEngines, func(e storeEngine) bool {
					return e.path == rel && e.part == part
				}) {
					t.Errorf("%s depends on %s; a store part imports only %v and its engines", part, rel, storeBase)
				}
			}
		})
	}
}

func TestStoreEnginesStandOnTheFormat(t *testing.T) {
	for _, e := range storeEngines {
		t.Run(e.path, func(t *testing.T) {
			pkgs := list(t, module+e.path)
			if len(pkgs) != 1 || pkgs[0].Error != nil {
				t.Fatalf("go list %s = %+v; want the store's engine (update archtest if it moved)", e.path, pkgs)
			}
			for _, dep := range pkgs[0].Deps {
				rel, ok := strings.CutPrefix(dep, module)
				if ok && strings.HasPrefix(rel, "shared/dynamostore") && !slices.Contains(e.base, rel) {
					t.Errorf("%s depends on %s; it imports only %v of the store", e.path, rel, e.base)
				}
			}
		})
	}
}
