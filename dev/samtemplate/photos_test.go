package samtemplate_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/patio-dev/patio/dev/samtemplate"
)

// rawResources is the repository template's Resources as plain values: an intrinsic function's
// tag (!Sub, !GetAtt) is dropped and its argument kept, which is what these checks read.
func rawResources(t *testing.T) map[string]any {
	t.Helper()
	path, err := samtemplate.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var untag func(n *yaml.Node)
	untag = func(n *yaml.Node) {
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			n.Tag = ""
		}
		for _, c := range n.Content {
			untag(c)
		}
	}
	untag(&root)
	var tpl struct {
		Resources map[string]any `yaml:"Resources"`
	}
	if err := root.Decode(&tpl); err != nil {
		t.Fatal(err)
	}
	return tpl.Resources
}

// at follows a path of mapping keys and list indexes ("0") from v; nil when it leads nowhere.
func at(v any, path ...string) any {
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func TestRepoTemplatePhotos(t *testing.T) {
	res := rawResources(t)
	bucket := at(res, "PhotosBucket", "Properties")
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"the bucket blocks public policies", at(bucket, "PublicAccessBlockConfiguration", "RestrictPublicBuckets"), true},
		{"the bucket blocks public ACLs", at(bucket, "PublicAccessBlockConfiguration", "BlockPublicAcls"), true},
		{"the bucket is versioned (a deletion keeps the bytes as noncurrent)", at(bucket, "VersioningConfiguration", "Status"), "Enabled"},
		{"deleted photos' bytes go after 30 days", at(bucket, "LifecycleConfiguration", "Rules", "0", "NoncurrentVersionExpiration", "NoncurrentDays"), 30},
		{"the bucket tells EventBridge", at(bucket, "NotificationConfiguration", "EventBridgeConfiguration", "EventBridgeEnabled"), true},
		{"only CloudFront reads", at(res, "PhotosBucketPolicy", "Properties", "PolicyDocument", "Statement", "0", "Principal", "Service"), "cloudfront.amazonaws.com"},
		{"it reads objects", at(res, "PhotosBucketPolicy", "Properties", "PolicyDocument", "Statement", "0", "Action"), "s3:GetObject"},
		{"it reads the variants only", at(res, "PhotosBucketPolicy", "Properties", "PolicyDocument", "Statement", "0", "Resource"), "${PhotosBucket.Arn}/photos/*"},
		{"through this distribution only", at(res, "PhotosBucketPolicy", "Properties", "PolicyDocument", "Statement", "0", "Condition", "StringEquals", "AWS:SourceArn"),
			"arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:distribution/${PhotosDistribution}"},
		{"the distribution signs with its origin access control", at(res, "PhotosDistribution", "Properties", "DistributionConfig", "Origins", "0", "OriginAccessControlId"), "PhotosOriginAccessControl.Id"},
		{"no legacy origin access identity", at(res, "PhotosDistribution", "Properties", "DistributionConfig", "Origins", "0", "S3OriginConfig", "OriginAccessIdentity"), ""},
		{"viewers use https", at(res, "PhotosDistribution", "Properties", "DistributionConfig", "DefaultCacheBehavior", "ViewerProtocolPolicy"), "redirect-to-https"},
		{"cached as the origin says (a year)", at(res, "PhotosDistribution", "Properties", "DistributionConfig", "DefaultCacheBehavior", "CachePolicyId"), "658327ea-f89d-4fab-a63d-7e88639e58f6"},
		{"the image function starts on originals", at(res, "ImagesFunction", "Properties", "Events", "OriginalUploaded", "Properties", "Pattern", "detail", "object", "key", "0", "prefix"), "originals/"},
		{"within 512 MB", at(res, "ImagesFunction", "Properties", "MemorySize"), 512},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: template has %v; want %v", c.name, c.got, c.want)
		}
	}
}
