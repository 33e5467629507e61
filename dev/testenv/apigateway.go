package testenv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
)

const apiGatewayEndpointVar = "AWS_ENDPOINT_URL_API_GATEWAY"

var (
	apiGatewayOnce sync.Once
	apiGatewayErr  error
)

// APIGateway returns the default AWS configuration once moto's API Gateway at
// AWS_ENDPOINT_URL_API_GATEWAY (and DynamoDB Local, see AWSConfig) has answered. When either is
// unavailable it skips the test, or fails it under CI=true.
func APIGateway(t testing.TB) aws.Config {
	t.Helper()
	c := AWSConfig(t)
	apiGatewayOnce.Do(func() {
		endpoint := os.Getenv(apiGatewayEndpointVar)
		if endpoint == "" {
			apiGatewayErr = fmt.Errorf("%s is not set", apiGatewayEndpointVar)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := apigateway.NewFromConfig(c).GetUsagePlans(ctx, &apigateway.GetUsagePlansInput{Limit: aws.Int32(1)}); err != nil {
			apiGatewayErr = fmt.Errorf("moto's API Gateway at %s does not answer: %w", endpoint, err)
		}
	})
	if apiGatewayErr != nil {
		unavailable(t, apiGatewayErr)
	}
	return c
}
