// Package awsconfig loads the AWS configuration with the SDK's loader (profiles, SSO, instance
// metadata, ...), for the programs that run outside Lambda: the local stack, the operators' tool,
// the bench and the tests. The Lambda functions read theirs from the variables Lambda sets
// (app.LambdaAWS) and never link the loader, whose package initialisation alone (its STS, SSO and
// sign-in clients) weighs about 0.3 MB in each binary; shared/archtest keeps it so.
package awsconfig

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/patio-dev/patio/shared/app"
)

// Load loads the AWS configuration from the standard environment (region, credentials and
// AWS_ENDPOINT_URL_* overrides for local engines), with the functions' HTTP client and logger
// (app.SDKHTTPClient, app.SDKLogger).
func Load(ctx context.Context) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(app.SDKLogger()), config.WithHTTPClient(app.SDKHTTPClient()))
	if err != nil {
		return aws.Config{}, fmt.Errorf("awsconfig: load AWS configuration: %w", err)
	}
	return cfg, nil
}
