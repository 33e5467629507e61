package main

import "testing"

// queried is a recorded Query of body that examined n items.
func queried(n int, body string) sdkCall { return sdkCall{op: "Query", scanned: n, body: body} }

func TestClassify(t *testing.T) {
	tests := []struct {
		name                  string
		call                  sdkCall
		page, count, counters int
	}{
		{"a page of rows", queried(20, `{"ExpressionAttributeValues":{":v0":{"S":"t1"},":v1":{"S":"vo#ativo#"}}}`), 20, 0, 0},
		{"the status shards", queried(4, `{"ExpressionAttributeValues":{":v1":{"S":"n#"},":v2":{"S":"n$"}}}`), 0, 0, 4},
		{"an open facet's counter", queried(4, `{"ExpressionAttributeValues":{":v1":{"S":"nf#brand=toyota#"}}}`), 0, 0, 4},
		{"month sums", queried(3, `{"ExpressionAttributeValues":{":v1":{"S":"nm#2026-01#"}}}`), 0, 0, 3},
		{"a COUNT query", queried(50, `{"Select":"COUNT","ExpressionAttributeValues":{":v1":{"S":"vo#ativo#"}}}`), 0, 50, 0},
		{"the matches' keys", queried(70, `{"ProjectionExpression":"pk, sk, id, #status","ExpressionAttributeValues":{":v1":{"S":"vo#ativo#"}}}`), 0, 70, 0},
		{"a page of cards", queried(25, `{"ProjectionExpression":"pk, sk, id, title, client_id, vehicle_id, #status","ExpressionAttributeValues":{":v1":{"S":"do#aberto#"}}}`), 25, 0, 0},
		{"word items", queried(30, `{"ExpressionAttributeValues":{":v1":{"S":"vw#ativo#corolla#"}}}`), 0, 30, 0},
		{"word items, in key conditions", queried(11, `{"KeyConditions":{"sk":{"AttributeValueList":[{"S":"vw#vendido#corolla#"},{"S":"vw#vendido#corolla#\uffff"}],"ComparisonOperator":"BETWEEN"}}}`), 0, 11, 0},
		{"a word's counters, from a bound", queried(4, `{"KeyConditions":{"sk":{"AttributeValueList":[{"S":"nf#q=corolla"},{"S":"nf#q=corolla\uffff"}],"ComparisonOperator":"BETWEEN"}}}`), 0, 0, 4},
		{"the status shards, in key conditions", queried(4, `{"KeyConditions":{"sk":{"AttributeValueList":[{"S":"n#"},{"S":"n$"}],"ComparisonOperator":"BETWEEN"}}}`), 0, 0, 4},
		{"order items, in key conditions", queried(20, `{"KeyConditions":{"sk":{"AttributeValueList":[{"S":"vo#ativo#"},{"S":"vo#ativo#\uffff"}],"ComparisonOperator":"BETWEEN"}}}`), 20, 0, 0},
		{"a batch of records", sdkCall{op: "BatchGetItem", items: 7, scanned: -1}, 7, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, count, counters := classify([]sdkCall{tt.call})
			if page != tt.page || count != tt.count || counters != tt.counters {
				t.Errorf("classify(%s) = %d, %d, %d; want %d, %d, %d", tt.call.body, page, count, counters, tt.page, tt.count, tt.counters)
			}
		})
	}
}
