package samtemplate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

const (
	typeBucket       = "AWS::S3::Bucket"
	typeDistribution = "AWS::CloudFront::Distribution"
)

// errLocalDistribution marks a variable that names a CloudFront distribution: the local stack
// serves what it would from moto itself and sets such a variable (PHOTOS_URL) to that address.
var errLocalDistribution = errors.New("names a CloudFront distribution, which only exists on AWS")

// Bucket is one bucket the local stack created for a template's bucket.
type Bucket struct {
	// Name is the bucket's name, the prefix plus the logical id, lower-cased.
	Name string
	// URL is where its objects are read over HTTP (moto's path-style address of the bucket).
	URL string
	// Events is the URL of the queue moto sends the bucket's "object created" notifications to:
	// on AWS they go to EventBridge, which moto does not deliver to a function; the local stack
	// polls this queue and hands each to the function the template's rule names.
	Events string
}

// bucketsOf returns the logical ids of tpl's buckets.
func (t *Template) bucketsOf() []string {
	var ids []string
	for _, id := range sortedKeys(t.resources) {
		if t.resources[id].typ == typeBucket {
			ids = append(ids, id)
		}
	}
	return ids
}

// createBuckets creates every bucket of tpl in moto (versioned, as the template's photos bucket
// is), each with a queue of its object-created notifications. An existing bucket is kept.
func createBuckets(ctx context.Context, queues *sqs.Client, tpl *Template, prefix string) (map[string]Bucket, error) {
	o := queues.Options()
	client := s3.New(s3.Options{Region: o.Region, BaseEndpoint: o.BaseEndpoint, Credentials: o.Credentials,
		HTTPClient: o.HTTPClient, UsePathStyle: true})
	out := map[string]Bucket{}
	for _, id := range tpl.bucketsOf() {
		name := strings.ToLower(prefix + id)
		if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil &&
			!strings.Contains(err.Error(), "BucketAlreadyOwnedByYou") {
			return nil, fmt.Errorf("samtemplate: create bucket %s: %w", name, err)
		}
		if _, err := client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &name,
			VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}}); err != nil {
			return nil, fmt.Errorf("samtemplate: bucket %s: %w", name, err)
		}
		if rules := corsRules(tpl.resources[id].props); len(rules) > 0 {
			if _, err := client.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: &name,
				CORSConfiguration: &s3types.CORSConfiguration{CORSRules: rules}}); err != nil {
				return nil, fmt.Errorf("samtemplate: CORS of %s: %w", name, err)
			}
		}
		// What the distribution does on AWS: anyone reads the variants, nothing else.
		policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",` +
			`"Resource":"arn:aws:s3:::` + name + `/photos/*"}]}`
		if _, err := client.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: &name, Policy: &policy}); err != nil {
			return nil, fmt.Errorf("samtemplate: policy of %s: %w", name, err)
		}
		q, err := queues.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(prefix + id + "Events")})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: events queue of %s: %w", name, err)
		}
		attrs, err := queues.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl,
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
		if err != nil {
			return nil, fmt.Errorf("samtemplate: events queue of %s: %w", name, err)
		}
		arn := attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
		if _, err := client.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{Bucket: &name,
			NotificationConfiguration: &s3types.NotificationConfiguration{QueueConfigurations: []s3types.QueueConfiguration{{
				QueueArn: &arn, Events: []s3types.Event{"s3:ObjectCreated:*"},
				// The template's rule passes originals only (ImagesFunction's event pattern).
				Filter: &s3types.NotificationConfigurationFilter{Key: &s3types.S3KeyFilter{
					FilterRules: []s3types.FilterRule{{Name: s3types.FilterRuleNamePrefix, Value: aws.String("originals/")}}}},
			}}}}); err != nil {
			return nil, fmt.Errorf("samtemplate: notifications of %s: %w", name, err)
		}
		out[id] = Bucket{Name: name, URL: strings.TrimRight(aws.ToString(o.BaseEndpoint), "/") + "/" + name,
			Events: aws.ToString(q.QueueUrl)}
	}
	return out, nil
}

// corsRules are a bucket's CorsConfiguration in the template (browsers posting files to it from
// a page of another origin, as the console's script does), as the S3 API takes them.
func corsRules(props map[string]any) []s3types.CORSRule {
	cfg, _ := props["CorsConfiguration"].(map[string]any)
	list, _ := cfg["CorsRules"].([]any)
	var rules []s3types.CORSRule
	for _, r := range list {
		m, _ := r.(map[string]any)
		rule := s3types.CORSRule{AllowedMethods: strs(m["AllowedMethods"]), AllowedOrigins: strs(m["AllowedOrigins"]),
			AllowedHeaders: strs(m["AllowedHeaders"])}
		if age, err := strconv.ParseInt(fmt.Sprint(m["MaxAge"]), 10, 32); err == nil { // scalars are strings
			rule.MaxAgeSeconds = aws.Int32(int32(age))
		}
		rules = append(rules, rule)
	}
	return rules
}

// strs is a template's list of strings.
func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}
