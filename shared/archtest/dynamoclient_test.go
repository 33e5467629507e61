package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// clientMakers are the calls that make a DynamoDB client. Only shared/dynamostore/storecore makes
// one, and hands guregu/dynamo the operations it calls rather than the SDK's client: a client held
// in an interface value keeps all of its sixty operations in a binary that links html/template
// (the console's budget).
var clientMakers = map[string]bool{"dynamodb.NewFromConfig": true, "dynamodb.New": true, "dynamo.New": true,
	"dynamo.NewFromIface": true}

func TestOnlyTheStoreCoreMakesDynamoDBClients(t *testing.T) {
	for _, p := range list(t, module+"...") {
		rel := strings.TrimPrefix(p.ImportPath, module)
		if p.Error != nil || hasAnyPrefix(rel, unshipped) || rel == "shared/dynamostore/storecore" {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && clientMakers[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s uses %s.%s; DynamoDB clients are made by storecore.New only", fset.Position(sel.Pos()),
						x.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
}
