package s3photos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// postPolicy builds the fields of a presigned S3 POST (AWS Signature Version 4 for a POST policy,
// as S3's "Browser-Based Uploads Using POST" documents it): the form's fields, the policy that
// bounds them (bucket, exact key, a content-type starting with image/, a body of 1 to maxBytes
// bytes; with back, the address S3 sends the browser to once the bytes are in) and the policy's
// signature. The SDK signs requests, not POST policies, so this does.
func postPolicy(creds aws.Credentials, region, bucket, key string, maxBytes int, expires, now time.Time, back string) (map[string]string, error) {
	date := now.UTC().Format("20060102")
	credential := creds.AccessKeyID + "/" + date + "/" + region + "/s3/aws4_request"
	amzDate := now.UTC().Format("20060102T150405Z")
	conditions := []any{
		map[string]string{"bucket": bucket},
		map[string]string{"key": key},
		[]any{"starts-with", "$Content-Type", "image/"},
		[]any{"content-length-range", 1, maxBytes},
		map[string]string{"x-amz-algorithm": "AWS4-HMAC-SHA256"},
		map[string]string{"x-amz-credential": credential},
		map[string]string{"x-amz-date": amzDate},
	}
	if creds.SessionToken != "" {
		conditions = append(conditions, map[string]string{"x-amz-security-token": creds.SessionToken})
	}
	if back != "" {
		conditions = append(conditions, map[string]string{"success_action_redirect": back})
	}
	doc, err := json.Marshal(map[string]any{"expiration": expires.UTC().Format("2006-01-02T15:04:05.000Z"), "conditions": conditions})
	if err != nil {
		return nil, err
	}
	policy := base64.StdEncoding.EncodeToString(doc)
	signingKey := hmacSHA256([]byte("AWS4"+creds.SecretAccessKey), date)
	for _, part := range []string{region, "s3", "aws4_request"} {
		signingKey = hmacSHA256(signingKey, part)
	}
	fields := map[string]string{
		"key":              key,
		"policy":           policy,
		"x-amz-algorithm":  "AWS4-HMAC-SHA256",
		"x-amz-credential": credential,
		"x-amz-date":       amzDate,
		"x-amz-signature":  hex.EncodeToString(hmacSHA256(signingKey, policy)),
	}
	if creds.SessionToken != "" {
		fields["x-amz-security-token"] = creds.SessionToken
	}
	if back != "" {
		fields["success_action_redirect"] = back
	}
	return fields, nil
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}
