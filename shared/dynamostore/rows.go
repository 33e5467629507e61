package dynamostore

import "github.com/patio-dev/patio/shared/patio"

// Optional attributes of the rows the store encodes itself (activities', financial records').

func tsPtr(t *patio.Timestamp) *string {
	if t == nil {
		return nil
	}
	s := t.String()
	return &s
}

func dateStr(d *patio.Date) *string {
	if d == nil {
		return nil
	}
	return ptrTo(d.String())
}

func ptrTo[T any](v T) *T { return &v }
