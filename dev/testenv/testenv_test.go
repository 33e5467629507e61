package testenv_test

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/patio-dev/patio/dev/testenv"
)

func TestTables(t *testing.T) {
	first := testenv.Tables(t)
	second := testenv.Tables(t)
	if len(first) == 0 {
		t.Fatal("Tables() returned no tables")
	}
	client := dynamodb.NewFromConfig(testenv.AWSConfig(t))
	for id, name := range first {
		if second[id] != name {
			t.Errorf("second Tables()[%s] = %q; want %q (one table set per test binary)", id, second[id], name)
		}
		if _, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("DescribeTable(%q): %v", name, err)
		}
	}
	env := map[string]string{
		"VEHICLES_TABLE": "VehiclesTable", "CLIENTS_TABLE": "ClientsTable",
		"DEALS_TABLE": "DealsTable", "ACCOUNTS_TABLE": "AccountsTable",
	}
	for v, id := range env {
		if got := os.Getenv(v); got != first[id] {
			t.Errorf("$%s = %q; want %q", v, got, first[id])
		}
	}
}
