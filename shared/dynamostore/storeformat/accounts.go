package storeformat

import "time"

// The accounts table's items: a team (TeamKey, TeamSort), an API key by its hash (APIKeyKey,
// KeySort) naming its team, and a team's request counters of a minute and of a day (RateKeys,
// RateSort), each a count that expires.
const (
	TeamSort      = "team"
	KeySort       = "key"
	RateSort      = "rate"
	TeamIDAttr    = "team_id"
	PlanAttr      = "plan"
	CountAttr     = "count"
	ExpiresAtAttr = "expires_at"
)

// TeamKey is the partition key of a team's item.
func TeamKey(id string) string { return "team#" + id }

// APIKeyKey is the partition key of an API key's item, by the key's hash.
func APIKeyKey(hash string) string { return "key#" + hash }

// RateKeys are the partition keys of a team's request counters of the UTC minute and day of now.
func RateKeys(teamID string, now time.Time) (minute, day string) {
	now = now.UTC()
	return "rate#" + teamID + "#m#" + now.Format("200601021504"), "rate#" + teamID + "#d#" + now.Format("20060102")
}
