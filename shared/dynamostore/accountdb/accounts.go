package accountdb

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// teamRow is a team in AccountsTable.
type teamRow struct {
	PK        string `dynamo:"pk,hash"`
	SK        string `dynamo:"sk,range"`
	ID        string `dynamo:"id"`
	Name      string `dynamo:"name"`
	Email     string `dynamo:"email"`
	Plan      string `dynamo:"plan"`
	CreatedAt string `dynamo:"created_at"`
	// The team's API Gateway key (patio.Team.GatewayKeyID, GatewayKey); absent on the local stack.
	GatewayKeyID string `dynamo:"gateway_key_id,omitempty"`
	GatewayKey   string `dynamo:"gateway_key,omitempty"`
	// TimeZone is the team's IANA time zone; absent for teams created before it existed (the
	// default then applies).
	TimeZone string `dynamo:"time_zone,omitempty"`
	// Language is the language of the team's emails; absent until set (patio.Team.Lang).
	Language string `dynamo:"language,omitempty"`
}

// keyRow is an API key in AccountsTable, keyed by the key's SHA-256 hash.
type keyRow struct {
	PK        string   `dynamo:"pk,hash"`
	SK        string   `dynamo:"sk,range"`
	KeyID     string   `dynamo:"key_id"`
	TeamID    string   `dynamo:"team_id"`
	Name      string   `dynamo:"name"`
	Hint      string   `dynamo:"hint,omitempty"`
	Scopes    []string `dynamo:"scopes"`
	Status    string   `dynamo:"status"`
	CreatedAt string   `dynamo:"created_at"`
	// LastUsedMs is the key's last use (Unix ms, to the minute; absent: never used).
	LastUsedMs int64 `dynamo:"last_used_ms,omitempty"`
}

func teamPK(id string) string  { return "team#" + id }
func keyPK(hash string) string { return "key#" + hash }

func (r teamRow) team() (patio.Team, error) {
	created, err := patio.ParseTimestamp(r.CreatedAt)
	tz := r.TimeZone
	if tz == "" {
		tz = patio.DefaultTimeZone
	}
	return patio.Team{ID: r.ID, Name: r.Name, Email: r.Email, Plan: patio.Plan(r.Plan), CreatedAt: created,
		GatewayKeyID: r.GatewayKeyID, GatewayKey: r.GatewayKey, TimeZone: tz, Language: r.Language}, err
}

func (r keyRow) key() (patio.APIKey, error) {
	created, err := patio.ParseTimestamp(r.CreatedAt)
	k := patio.APIKey{
		ID: r.KeyID, TeamID: r.TeamID, Name: r.Name, Hint: r.Hint, Hash: r.PK[len("key#"):],
		Scopes: r.Scopes, Status: r.Status, CreatedAt: created,
	}
	if r.LastUsedMs > 0 {
		k.LastUsedAt = time.UnixMilli(r.LastUsedMs).UTC()
	}
	return k, err
}

// NoteKeyUse implements patio.KeyUseNoter with one conditional write: only when no use within
// patio.KeyUseEvery is recorded (a failed condition is that case, not an error).
func (s *Accounts) NoteKeyUse(ctx context.Context, hash string, at time.Time) error {
	err := s.accounts().Update("pk", keyPK(hash)).Range("sk", "key").Set("last_used_ms", at.UnixMilli()).
		If("attribute_exists(pk) AND (attribute_not_exists('last_used_ms') OR 'last_used_ms' <= ?)",
			at.Add(-patio.KeyUseEvery).UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return storecore.Wrap(err, "note key use", "")
}

// CreateTeam stores a new team.
func (s *Accounts) CreateTeam(ctx context.Context, t patio.Team) error {
	row := teamRow{PK: teamPK(t.ID), SK: "team", ID: t.ID, Name: t.Name, Email: t.Email,
		Plan: string(t.Plan), CreatedAt: t.CreatedAt.String(), GatewayKeyID: t.GatewayKeyID, GatewayKey: t.GatewayKey,
		TimeZone: t.TimeZone}
	return storecore.Wrap(s.db.PutNew(ctx, s.accounts(), row), "create team", t.ID)
}

// Team returns a team (strongly consistent, so a plan change applies to the next request), or
// KindNotFound.
func (s *Accounts) Team(ctx context.Context, id string) (patio.Team, error) {
	var row teamRow
	err := s.accounts().Get("pk", teamPK(id)).Range("sk", dynamo.Equal, "team").Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.Team{}, storecore.Wrap(storecore.NotFound(err, "team"), "get team", id)
	}
	t, err := row.team()
	return t, storecore.Wrap(err, "decode team", id)
}

// SetPlan changes a team's plan; an unknown team is KindNotFound.
func (s *Accounts) SetPlan(ctx context.Context, id string, plan patio.Plan) (patio.Team, error) {
	var row teamRow
	err := s.accounts().Update("pk", teamPK(id)).Range("sk", "team").Set("plan", string(plan)).
		If("attribute_exists(pk)").Value(ctx, &row)
	if dynamo.IsCondCheckFailed(err) {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	if err != nil {
		return patio.Team{}, storecore.Wrap(err, "set plan", id)
	}
	t, err := row.team()
	return t, storecore.Wrap(err, "decode team", id)
}

// SetTimeZone sets a team's time zone (an IANA name the caller checked, patio.CheckTimeZone) and
// returns the team, or KindNotFound.
func (s *Accounts) SetTimeZone(ctx context.Context, id, tz string) (patio.Team, error) {
	var row teamRow
	err := s.accounts().Update("pk", teamPK(id)).Range("sk", "team").Set("time_zone", tz).
		If("attribute_exists(pk)").Value(ctx, &row)
	if dynamo.IsCondCheckFailed(err) {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	if err != nil {
		return patio.Team{}, storecore.Wrap(err, "set time zone", id)
	}
	t, err := row.team()
	return t, storecore.Wrap(err, "decode team", id)
}

// SetGatewayKey records the team's API Gateway key (its id and value, see patio.Team) and returns
// the updated team; an unknown team is KindNotFound.
func (s *Accounts) SetGatewayKey(ctx context.Context, id, keyID, value string) (patio.Team, error) {
	var row teamRow
	err := s.accounts().Update("pk", teamPK(id)).Range("sk", "team").
		Set("gateway_key_id", keyID).Set("gateway_key", value).
		If("attribute_exists(pk)").Value(ctx, &row)
	if dynamo.IsCondCheckFailed(err) {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	if err != nil {
		return patio.Team{}, storecore.Wrap(err, "set gateway key", id)
	}
	t, err := row.team()
	return t, storecore.Wrap(err, "decode team", id)
}

// CreateKey stores a new key (by its hash).
func (s *Accounts) CreateKey(ctx context.Context, k patio.APIKey) error {
	row := keyRow{PK: keyPK(k.Hash), SK: "key", KeyID: k.ID, TeamID: k.TeamID, Name: k.Name, Hint: k.Hint,
		Scopes: k.Scopes, Status: k.Status, CreatedAt: k.CreatedAt.String()}
	return storecore.Wrap(s.db.PutNew(ctx, s.accounts(), row), "create key", k.ID)
}

// KeyByHash returns the key with this hash (strongly consistent, so a revocation applies to the next
// request), or KindNotFound.
func (s *Accounts) KeyByHash(ctx context.Context, hash string) (patio.APIKey, error) {
	var row keyRow
	err := s.accounts().Get("pk", keyPK(hash)).Range("sk", dynamo.Equal, "key").Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.APIKey{}, storecore.Wrap(storecore.NotFound(err, "key"), "get key", "")
	}
	k, err := row.key()
	return k, storecore.Wrap(err, "decode key", row.KeyID)
}

// KeyAndTeam reads the key with this hash and the team with this id in one strongly consistent
// BatchGetItem (patio.KeyTeamReader): KindNotFound when there is no such key, the zero team when
// there is no such team.
func (s *Accounts) KeyAndTeam(ctx context.Context, hash, teamID string) (patio.APIKey, patio.Team, error) {
	var items []dynamo.Item
	err := s.accounts().Batch("pk", "sk").
		Get(dynamo.Keys{keyPK(hash), "key"}, dynamo.Keys{teamPK(teamID), "team"}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return patio.APIKey{}, patio.Team{}, storecore.Wrap(err, "get key and team", teamID)
	}
	var key keyRow
	var team teamRow
	for _, item := range items {
		dst := any(&team)
		if sk, _ := item["sk"].(*types.AttributeValueMemberS); sk != nil && sk.Value == "key" {
			dst = &key
		}
		if err := dynamo.UnmarshalItem(item, dst); err != nil {
			return patio.APIKey{}, patio.Team{}, storecore.Wrap(err, "decode key and team", teamID)
		}
	}
	if key.PK == "" {
		return patio.APIKey{}, patio.Team{}, patio.Errorf(patio.KindNotFound, "key not found")
	}
	k, err := key.key()
	if err != nil {
		return patio.APIKey{}, patio.Team{}, storecore.Wrap(err, "decode key", key.KeyID)
	}
	if team.PK == "" {
		return k, patio.Team{}, nil
	}
	t, err := team.team()
	return k, t, storecore.Wrap(err, "decode team", teamID)
}

// RevokeKey marks a key revoked; an unknown key id is KindNotFound.
func (s *Accounts) RevokeKey(ctx context.Context, id string) (patio.APIKey, error) {
	var found keyRow
	err := s.accounts().Get("key_id", id).Index("by_key_id").One(ctx, &found)
	if err != nil {
		return patio.APIKey{}, storecore.Wrap(storecore.NotFound(err, "key"), "find key", id)
	}
	var row keyRow
	err = s.accounts().Update("pk", found.PK).Range("sk", "key").Set("status", patio.KeyRevoked).
		If("attribute_exists(pk)").Value(ctx, &row)
	if err != nil {
		return patio.APIKey{}, storecore.Wrap(err, "revoke key", id)
	}
	k, err := row.key()
	return k, storecore.Wrap(err, "decode key", id)
}

// ListKeys returns a team's keys.
func (s *Accounts) ListKeys(ctx context.Context, teamID string) ([]patio.APIKey, error) {
	var rows []keyRow
	err := s.accounts().Get("team_id", teamID).Index("by_team").All(ctx, &rows)
	if err != nil {
		return nil, storecore.Wrap(err, "list keys", teamID)
	}
	out := make([]patio.APIKey, 0, len(rows))
	for _, r := range rows {
		k, err := r.key()
		if err != nil {
			return nil, storecore.Wrap(err, "decode key", r.KeyID)
		}
		out = append(out, k)
	}
	return out, nil
}

// rateRow is one team's request counter for one window in AccountsTable.
type rateRow struct {
	Count int `dynamo:"count"`
}

// Count implements patio.RateCounter with two conditional increments (ADD with a condition on the
// current count), each atomic on its own item. The minute is counted first; when the day then
// refuses, the minute increment is taken back, so a refused request consumes nothing. A request that
// meanwhile finds the minute full while that increment is being taken back is refused rightly: the
// day limit would have refused it too. No transaction is used, so hot counters never conflict.
func (s *Counters) Count(ctx context.Context, teamID string, now time.Time, perMinute, perDay int) (int, int, patio.Window, error) {
	minuteKey, dayKey, minuteExpiry, dayExpiry := rateKeys(teamID, now)

	// The two windows are counted at once (one round trip, not two); a window that refuses the
	// request has not counted it, and the other's count is taken back, so a refused request counts
	// nowhere. The minute is reported first when both refuse.
	var minute, day int
	var minuteErr, dayErr error
	var wg sync.WaitGroup
	wg.Go(func() { minute, minuteErr = s.increment(ctx, minuteKey, 1, perMinute, minuteExpiry) })
	day, dayErr = s.increment(ctx, dayKey, 1, perDay, dayExpiry)
	wg.Wait()
	if minuteErr == nil && dayErr == nil {
		return minute, day, patio.WindowNone, nil
	}
	undo := context.WithoutCancel(ctx)
	var errs []error
	if minuteErr == nil {
		if _, err := s.increment(undo, minuteKey, -1, 0, minuteExpiry); err != nil {
			errs = append(errs, storecore.Wrap(err, "take back the minute's count", teamID))
		}
	}
	if dayErr == nil {
		if _, err := s.increment(undo, dayKey, -1, 0, dayExpiry); err != nil {
			errs = append(errs, storecore.Wrap(err, "take back the day's count", teamID))
		}
	}
	refused := patio.WindowNone
	switch {
	case dynamo.IsCondCheckFailed(minuteErr):
		refused = patio.WindowMinute
	case minuteErr != nil:
		errs = append(errs, storecore.Wrap(minuteErr, "count minute", teamID))
	}
	switch {
	case dynamo.IsCondCheckFailed(dayErr):
		if refused == patio.WindowNone {
			refused = patio.WindowDay
		}
	case dayErr != nil:
		errs = append(errs, storecore.Wrap(dayErr, "count day", teamID))
	}
	if err := errors.Join(errs...); err != nil {
		return 0, 0, patio.WindowNone, err
	}
	return 0, 0, refused, nil
}

// rateKeys are the keys of a team's counters of the UTC minute and day of now, and when each
// expires (an hour after its minute, two days after its day).
func rateKeys(teamID string, now time.Time) (minuteKey, dayKey string, minuteExpiry, dayExpiry int64) {
	now = now.UTC()
	return "rate#" + teamID + "#m#" + now.Format("200601021504"), "rate#" + teamID + "#d#" + now.Format("20060102"),
		now.Truncate(time.Minute).Add(time.Hour).Unix(), now.Truncate(24 * time.Hour).Add(48 * time.Hour).Unix()
}

// Uncount implements patio.RateCounter: the minute's and the day's counts of now each lose one, at
// once.
func (s *Counters) Uncount(ctx context.Context, teamID string, now time.Time) error {
	minuteKey, dayKey, minuteExpiry, dayExpiry := rateKeys(teamID, now)
	var minuteErr error
	var wg sync.WaitGroup
	wg.Go(func() { _, minuteErr = s.increment(ctx, minuteKey, -1, 0, minuteExpiry) })
	_, dayErr := s.increment(ctx, dayKey, -1, 0, dayExpiry)
	wg.Wait()
	return errors.Join(storecore.Wrap(minuteErr, "take back the minute's count", teamID), storecore.Wrap(dayErr, "take back the day's count", teamID))
}

// RequestsCounted returns how many requests of the team the minute and the UTC day of now have
// counted (the rate limiter's own counters), in one BatchGetItem.
func (s *Counters) RequestsCounted(ctx context.Context, teamID string, now time.Time) (int, int, error) {
	minuteKey, dayKey, _, _ := rateKeys(teamID, now)
	var items []dynamo.Item
	err := s.accounts().Batch("pk", "sk").Get(dynamo.Keys{minuteKey, "rate"}, dynamo.Keys{dayKey, "rate"}).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, 0, storecore.Wrap(err, "read request counters of", teamID)
	}
	var minute, day int
	for _, item := range items {
		var row struct {
			PK    string `dynamo:"pk"`
			Count int    `dynamo:"count"`
		}
		if err := dynamo.UnmarshalItem(item, &row); err != nil {
			return 0, 0, storecore.Wrap(err, "decode request counter of", teamID)
		}
		if row.PK == minuteKey {
			minute = row.Count
		} else {
			day = row.Count
		}
	}
	return minute, day, nil
}

// increment adds delta to a counter and returns the new count. With limit > 0 it only adds while
// the count is below limit (a failed condition otherwise). It is sent again only when DynamoDB
// surely did not apply it (counterRetryables), so no retry counts a request twice.
func (s *Counters) increment(ctx context.Context, pk string, delta, limit int, expiresAt int64) (int, error) {
	u := s.db.Counters.Table(s.db.Tables.Accounts).Update("pk", pk).Range("sk", "rate").Add("count", delta).Set("expires_at", expiresAt)
	if limit > 0 {
		u = u.If("attribute_not_exists('count') OR 'count' < ?", limit)
	}
	var row rateRow
	err := u.Value(ctx, &row)
	return row.Count, err
}

// SetTeamProfile implements patio.TeamStore.
func (s *Accounts) SetTeamProfile(ctx context.Context, id, name, email, timeZone, language string) (patio.Team, error) {
	var row teamRow
	err := s.accounts().Update("pk", teamPK(id)).Range("sk", "team").Set("name", name).Set("email", email).
		Set("time_zone", timeZone).Set("language", language).If("attribute_exists(pk)").Value(ctx, &row)
	if dynamo.IsCondCheckFailed(err) {
		return patio.Team{}, patio.NotFoundf("team not found")
	}
	if err != nil {
		return patio.Team{}, storecore.Wrap(err, "set team profile", id)
	}
	t, err := row.team()
	return t, storecore.Wrap(err, "decode team", id)
}

// KeyByID implements patio.KeyAdminStore: the by_key_id index finds the key's hash, then the key
// is read strongly consistent.
func (s *Accounts) KeyByID(ctx context.Context, id string) (patio.APIKey, error) {
	var found keyRow
	if err := s.accounts().Get("key_id", id).Index("by_key_id").One(ctx, &found); err != nil {
		return patio.APIKey{}, storecore.Wrap(storecore.NotFound(err, "key"), "find key", id)
	}
	return s.KeyByHash(ctx, found.PK[len("key#"):])
}
