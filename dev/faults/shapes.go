package faults

import (
	"encoding/json"
	"net/http"
)

// awsError is an error answer as a service's protocol writes it.
type awsError struct {
	status int
	code   string // the error's shape name, as the SDK's errors carry it
	header http.Header
	body   []byte
}

// errorFor returns the answer service gives for kind (Throttle, Throttling or Error500), in the
// shape its SDK client's protocol reads: AWS JSON 1.0 for DynamoDB, its Streams and SQS (the SDK
// speaks JSON to SQS, with the query protocol's code in x-amzn-query-error), AWS JSON 1.1 for
// Cognito, REST-JSON for SES v2.
func errorFor(service string, kind Kind) awsError {
	code, status := errorCode(service, kind)
	msg := "Rate exceeded"
	if status >= 500 {
		msg = "We encountered an internal error. Please try again."
	}
	h := http.Header{}
	var body map[string]string
	switch service {
	case "dynamodb", "streams":
		h.Set("Content-Type", "application/x-amz-json-1.0")
		prefix := "com.amazonaws.dynamodb.v20120810#"
		if code == "ThrottlingException" {
			prefix = "com.amazon.coral.availability#"
		}
		body = map[string]string{"__type": prefix + code, "message": msg}
	case "sqs":
		h.Set("Content-Type", "application/x-amz-json-1.0")
		fault := "Sender"
		if status >= 500 {
			fault = "Receiver"
		}
		h.Set("X-Amzn-Query-Error", code+";"+fault)
		body = map[string]string{"__type": "com.amazonaws.sqs#" + code, "message": msg}
	case "cognito":
		h.Set("Content-Type", "application/x-amz-json-1.1")
		body = map[string]string{"__type": code, "message": msg}
	default: // ses: REST-JSON names the error in a header
		h.Set("Content-Type", "application/json")
		h.Set("X-Amzn-ErrorType", code)
		body = map[string]string{"message": msg}
	}
	h.Set("X-Amzn-RequestId", "faults-injected")
	b, _ := json.Marshal(body)
	return awsError{status: status, code: code, header: h, body: b}
}

// errorCode is the error name and status of kind on service.
func errorCode(service string, kind Kind) (string, int) {
	if kind == Error500 {
		switch service {
		case "dynamodb", "streams":
			return "InternalServerError", http.StatusInternalServerError
		case "sqs":
			return "InternalError", http.StatusInternalServerError
		case "cognito":
			return "InternalErrorException", http.StatusInternalServerError
		default:
			return "InternalFailure", http.StatusInternalServerError
		}
	}
	switch service {
	case "dynamodb":
		if kind == Throttling {
			return "ThrottlingException", http.StatusBadRequest
		}
		return "ProvisionedThroughputExceededException", http.StatusBadRequest
	case "streams":
		return "LimitExceededException", http.StatusBadRequest
	case "sqs":
		return "RequestThrottled", http.StatusBadRequest
	case "cognito":
		return "TooManyRequestsException", http.StatusBadRequest
	default:
		return "TooManyRequestsException", http.StatusTooManyRequests
	}
}

func (e awsError) write(w http.ResponseWriter) {
	for k, v := range e.header {
		w.Header()[k] = v
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(e.body)
}
