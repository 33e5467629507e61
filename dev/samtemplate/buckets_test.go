package samtemplate

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestBucketCORS: the local stack gives the photos' bucket the template's CORS rule, so that a
// page's script may post files to moto as it does to S3.
func TestBucketCORS(t *testing.T) {
	tpl, _, err := LoadModule()
	if err != nil {
		t.Fatal(err)
	}
	rules := corsRules(tpl.resources["PhotosBucket"].props)
	if len(rules) != 1 {
		t.Fatalf("corsRules(PhotosBucket) = %+v; want the template's one rule", rules)
	}
	r := rules[0]
	if !slices.Equal(r.AllowedMethods, []string{"POST"}) || !slices.Equal(r.AllowedOrigins, []string{"*"}) ||
		!slices.Equal(r.AllowedHeaders, []string{"*"}) || aws.ToInt32(r.MaxAgeSeconds) != 3600 {
		t.Errorf("corsRules(PhotosBucket) = %+v; want POST from any origin, any header, an hour", r)
	}
	if rules := corsRules(map[string]any{}); len(rules) != 0 {
		t.Errorf("corsRules(no CorsConfiguration) = %+v; want none", rules)
	}
}
