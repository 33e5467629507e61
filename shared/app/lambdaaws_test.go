package app_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/shared/app"
)

// lambdaEnv is what Lambda sets in an execution environment, and the local engines' endpoint.
var lambdaEnv = map[string]string{"AWS_REGION": "sa-east-1", "AWS_ACCESS_KEY_ID": "ASIAEXAMPLE",
	"AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000"}

// TestLambdaAWS: the configuration read from a Lambda environment has its region and its role's
// credentials, and the SDK's clients built from it find their endpoint variables as they do on the
// SDK's own loader.
func TestLambdaAWS(t *testing.T) {
	cfg, err := app.LambdaAWS(env(lambdaEnv))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || cfg.Region != "sa-east-1" || creds.AccessKeyID != "ASIAEXAMPLE" || creds.SecretAccessKey != "secret" ||
		creds.SessionToken != "token" {
		t.Errorf("region %q, credentials %+v, %v; want the environment's", cfg.Region, creds, err)
	}
	if cfg.HTTPClient == nil || cfg.Logger == nil {
		t.Error("no HTTP client or logger; want LoadAWS's")
	}

	tests := []struct {
		name            string
		set             map[string]string
		dynamodb, queue string // the clients' base endpoints; "" for the regional one
	}{
		{"a service's own", nil, "http://127.0.0.1:8000", ""},
		{"every service's", map[string]string{"AWS_ENDPOINT_URL": "http://all:1"}, "http://127.0.0.1:8000", "http://all:1"},
		{"several words", map[string]string{"AWS_ENDPOINT_URL_DYNAMODB_STREAMS": "http://streams", "AWS_ENDPOINT_URL_SQS": "http://q"},
			"http://127.0.0.1:8000", "http://q"},
		{"ignored", map[string]string{"AWS_ENDPOINT_URL": "http://all:1", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			for k, v := range lambdaEnv {
				vars[k] = v
			}
			for k, v := range tt.set {
				vars[k] = v
			}
			cfg, err := app.LambdaAWS(env(vars))
			if err != nil {
				t.Fatal(err)
			}
			db, q := aws.ToString(dynamodb.NewFromConfig(cfg).Options().BaseEndpoint), aws.ToString(sqs.NewFromConfig(cfg).Options().BaseEndpoint)
			if db != tt.dynamodb || q != tt.queue {
				t.Errorf("endpoints: DynamoDB %q, SQS %q; want %q, %q", db, q, tt.dynamodb, tt.queue)
			}
		})
	}

	for _, name := range []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		vars := map[string]string{}
		for k, v := range lambdaEnv {
			if k != name {
				vars[k] = v
			}
		}
		if _, err := app.LambdaAWS(env(vars)); err == nil {
			t.Errorf("LambdaAWS without %s = nil; want an error", name)
		}
	}
}
