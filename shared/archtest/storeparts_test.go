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
				if !slices.Contains(storeBase, rel) {
					t.Errorf("%s depends on %s; a store part imports only %v", part, rel, storeBase)
				}
			}
		})
	}
}
