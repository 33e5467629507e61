package patio

import "fmt"

// Message is one message an Error or a FieldError can carry: its code, which stays the same when
// the words change and is what an adapter speaking another language looks up (the console's
// catalogs hold problem.<code> in each language), and its English format, which is what the API
// shows, formatted with the error's arguments.
type Message struct {
	Code   string
	Format string
}

// The codes an adapter acts on, beyond showing them.
const (
	// CodePlateDuplicate is a vehicle's duplicate plate (its argument is the plate).
	CodePlateDuplicate = "plate_duplicate"
	// CodeNotOfThisTeam is a link (its arguments: the link's member, "client_id", and the kind of
	// record it names) that names no record of the team.
	CodeNotOfThisTeam = "not_of_this_team"
)

// messages is every message of the service, whichever layer reports it (the domain, the API's
// decoding, the webhooks, the console, the operators' tool), by code. The constructors that take a
// format (Errorf, Invalidf, Conflictf, NotFoundf, Problems.Add) find the code of their format here;
// a test keeps every literal format of the module's sources in this table.
//
// A field problem's first argument is the field's name, which the console shows by its label; the
// codes of the reasons that follow a field's name (from shared/br's normalisers and checkText) read
// as the reason alone.
var messages = []Message{
	// A field's problems, the field first.
	{"required", "%s is required"},
	{"required_for_client_type", "%s is required for a client of type %s"},
	{"not_allowed_for_client_type", "%s is not allowed for a client of type %s"},
	{CodeNotOfThisTeam, "%s does not name a %s of this team"},
	{"already_member", "%s is already a member of this team"},
	{"given_twice", "%s is given twice"},
	{"server_managed", "%s is managed by the server and cannot be sent"},
	{"out_of_range", "%s is out of range"},
	{"must_be_uuid", "%s must be a UUID"},
	{"must_be_list_of", "%s must be a comma-separated list of %s"},
	{"must_be_date_or_time", "%s must be a date (YYYY-MM-DD) or a date and time"},
	{"must_be_date", "%s must be a date (YYYY-MM-DD)"},
	{"must_be_date_in_form", "%s must be a date in the form YYYY-MM-DD"},
	{"must_be_time_date_or_ago", "%s must be an RFC 3339 time, a date (YYYY-MM-DD) or a duration ago (24h)"},
	{"number_too_long", "%s must be a number of at most %d characters"},
	{"must_be_string", "%s must be a string"},
	{"must_be_integer", "%s must be an integer"},
	{"must_be_object", "%s must be an object"},
	{"must_be_amount", "%s must be a number from 0 to 999999999.99 with at most 2 decimal places"},
	{"must_be_amount_such_as", "%s must be an amount such as %s"},
	{"amount_reads_two_ways", "%s reads two ways, %s or %s: type it with its cents"},
	{"too_long", "%s must be at most %d characters"},
	{"too_long_200", "%s must be at most 200 characters"},
	{"too_short", "%s must have at least %d characters"},
	{"between", "%s must be between %d and %d"},
	{"year_out_of_range", "%s must be between 1900 and 9999"},
	{"given_once", "%s must be given once"},
	{"one_of", "%s must be one of %s"},
	{"not_after", "%s must not be after %s"},
	{"not_before", "%s must not be before %s"},
	{"empty", "%s must not be empty"},
	{"negative", "%s must not be negative"},
	{"null", "%s must not be null"},
	{"named_not_found", "%s not found"},
	{"control_characters", "%s must not contain control characters"},
	{"bidi_characters", "%s must not contain bidirectional override characters"},
	{"not_utf8", "%s must be valid UTF-8 text"},
	{"entity_tags", "%s must be * or a comma-separated list of quoted entity tags"},
	{"invalid_address", "%s must be a valid address"},
	// The reasons of shared/br's normalisers, after the field's name.
	{"plate_format", "%s must be in the format ABC1234 or ABC1D23"},
	{"digits_11", "%s must have 11 digits"},
	{"vin_length", "%s must have 17 characters"},
	{"vin_characters", "%s must contain only digits and letters other than I, O and Q"},
	{"phone_characters", "%s must contain only digits, spaces, '(', ')', '-', '.' and a leading '+'"},
	{"phone_length", "%s must have 10 or 11 digits including the area code"},
	{"phone_area_code", "%s has an invalid area code"},
	{"phone_mobile", "%s must start with 9 after the area code when it has 11 digits"},
	{"phone_international_length", "%s must have 8 to 15 digits after '+'"},
	{"phone_country_code", "%s has an invalid country code"},
	{"cep_format", "%s must have 8 digits, optionally as 00000-000"},
	{"state_code", "%s must be a valid state code"},
	{"state_registration_characters", "%s must contain only digits or be ISENTO"},
	{"state_registration_length", "%s must have 2 to 14 digits or be ISENTO"},
	{"cpf_characters", "%s must contain only digits, '.' and '-'"},
	{"digits_all_equal", "%s must not have all digits equal"},
	{"check_digit", "%s has an invalid check digit"},
	{"cnpj_characters", "%s must contain only letters, digits, '.', '/' and '-'"},
	{"cnpj_length", "%s must have 14 characters"},
	{"cnpj_check_digits", "%s must end with 2 numeric check digits"},
	{"all_zeros", "%s must not be all zeros"},

	// Requests: their body, query string, headers and routes.
	{"body_not_utf8", "the body must be valid UTF-8 text"},
	{"body_unreadable", "the request body could not be read"},
	{"body_too_large", "the request body must be at most 1 MiB"},
	{"body_not_object", "the request body must be one JSON object"},
	{"query_malformed", "the query string must be name=value pairs joined by & with valid %%-escapes"},
	{"content_type_json", "Content-Type must be application/json"},
	{"unknown_field", "unknown field %s%s"},
	{"unknown_parameter", "unknown query parameter %s"},
	{"no_route", "no route for %s %s"},
	{"idempotency_key_invalid", "Idempotency-Key must be sent once, as 1 to 255 printable ASCII characters"},
	{"idempotency_key_reused", "Idempotency-Key was already used with a different request in the last 24 hours"},
	{"revision_mismatch", "If-Match does not match the record's current revision %d"},
	{"api_key_invalid", "missing or invalid API key"},
	{"scope_missing", "this API key lacks the %s scope"},
	{"rate_limit_minute", "rate limit of %d requests per minute exceeded; retry after %s"},
	{"rate_limit_day", "rate limit of %d requests per day exceeded; retry after %s"},
	{"resource_not_found", "resource not found"},
	{"page_not_found", "page not found"},

	// Lists: pages, cursors, sorting and filters.
	{"page_invalid", "page must be an integer of at least 1"},
	{"page_too_large", "page must be at most %d"},
	{"page_too_deep", "page must be at most %d with limit %d (page × limit ≤ %d); use cursor to go deeper"},
	{"limit_range", "limit must be between 1 and %d"},
	{"sort_one_of", "sort must be one of %s, optionally prefixed with -"},
	{"sort_invalid", "sort must name a field, optionally prefixed with -"},
	{"cursor_with_page", "cursor and page cannot be sent together"},
	{"cursor_other_list", "cursor belongs to a list with other filters, sort or limit; send it with the same parameters"},
	{"cursor_foreign", "cursor is not a cursor this API issued; send next_cursor as it was received"},
	{"cursor_not_delivery_list", "cursor is not one a delivery list gave"},
	{"cursor_not_this_search", "cursor is not valid for this search"},
	{"updated_since_invalid", "updated_since must be a timestamp (YYYY-MM-DDTHH:MM:SSZ) or a date (YYYY-MM-DD)"},
	{"search_needs_letter", "q must contain a letter or digit"},
	{"no_match", "no %s of this team matches %q"},
	{"several_match", "several records match %q: choose one"},
	{"summary_too_long", "a summary covers at most %d months"},
	{"to_before_from", "to must not be before from"},
	{"audit_target_combined", "target cannot be combined with actor or action"},

	// Vehicles, clients and deals.
	{CodePlateDuplicate, "a vehicle with plate %s already exists"},
	{"client_duplicate", "a client with %s %s already exists"},
	{"model_year_invalid", "model_year must be manufacture_year or the year after it"},
	{"vehicle_status_on_create", "status must be ativo or reservado when creating a vehicle"},
	{"vehicle_sold_by_deal", "vehicle was sold by deal %s; it can only be vendido or arquivado"},
	{"client_status_on_create", "status must be active when creating a client"},
	{"birth_date_too_early", "birth_date must be on or after 1900-01-01"},
	{"birth_date_in_future", "birth_date must not be in the future"},
	{"deal_status_on_create", "status must be ativo when creating a deal; close it with PUT"},
	{"deal_won_final", "a won deal is final; it cannot become %s"},
	{"deal_won_reactivate", "this deal won its vehicle; it can only be reactivated as ganho"},
	{"deal_won_vehicle_fixed", "this deal won its vehicle; vehicle_id cannot change"},
	{"client_not_active", "client_id must name an active client of this team"},
	{"vehicle_not_of_this_team", "vehicle_id does not name a vehicle of this team"},
	{"vehicle_not_available", "vehicle_id must name an ativo or reservado vehicle of this team"},
	{"vehicle_required_to_win", "vehicle_id is required to win a deal"},
	{"vehicle_already_sold", "the vehicle is already sold; this deal cannot win it"},
	{"lost_reason_required", "lost_reason is required when status is perdido"},
	{"lost_reason_not_allowed", "lost_reason is only allowed when status is perdido"},
	{"status_one_of", "status must be one of %s"},
	{"photo_not_found", "photo not found"},
	{"photo_not_waiting", "photo %s is %s; only a photo waiting for its bytes takes them"},
	{"photo_not_retried", "photo %s is ready; only a failed or processing photo may be retried"},
	{"photos_full", "a vehicle holds at most %d photos; delete one first"},
	{"photos_archived_vehicle", "an archived vehicle takes no photos; restore it first"},
	{"photos_order_list", "order must be a list of photo ids"},
	{"photos_order", "order must name each of the vehicle's %d photos once"},

	// Activities and financial records.
	{"title_required", "title is required"},
	{"due_at_invalid", "due_at must be a date and time"},
	{"due_date_invalid", "due_date must be a date"},
	{"activity_status_on_create", "status must be pending or in_progress when creating an activity"},
	{"activity_transition", "an activity that is %s cannot become %s"},
	{"financial_status_on_create", "status must be pending or paid when creating a financial record"},
	{"financial_transition", "a financial record that is %s cannot become %s"},
	{"category_of_other_type", "category must be one of %s for type %s"},
	{"type_unchangeable", "type cannot be changed"},
	{"amount_not_positive", "amount must be greater than 0"},
	{"amount_too_large", "amount must be at most 999999999.99"},
	{"description_too_long", "description must have at most %d characters"},
	{"paid_at_invalid", "paid_at must be a date and time"},
	{"paid_at_in_future", "paid_at must not be in the future"},
	{"paid_at_null", "paid_at must not be null"},
	{"paid_at_without_payment", "paid_at is given only with a payment (status paid)"},

	// Teams, members, accounts and API keys.
	{"team_name_length", "name must have 1 to 200 characters"},
	{"name_too_long_100", "name must have at most 100 characters"},
	{"email_invalid", "email must be a valid address"},
	{"plan_invalid", "plan must be one of starter, professional, autoshopping"},
	{"role_invalid", "role must be one of owner, admin, member, viewer"},
	{"role_cannot_invite", "your role does not allow inviting a %s"},
	{"role_forbids", "your role does not allow this"},
	{"role_changed", "the member's role changed meanwhile; try again"},
	{"last_owner", "a team must keep at least one owner"},
	{"lang_invalid", "lang must be pt-BR or en"},
	{"language_one_of", "language must be one of %s"},
	{"time_zone_unknown", "time zone %q is not an IANA time zone name"},
	{"time_zone_invalid", "time zone must be an IANA name such as America/Sao_Paulo"},
	{"password_weak", "the password must have at least %d characters, with lower-case and upper-case letters, a digit and a symbol"},
	{"password_wrong", "the current password is wrong"},
	{"credentials_wrong", "wrong email or password"},
	{"no_team", "your account belongs to no team; ask a team's owner to invite you"},
	{"scopes_none", "choose at least one scope"},
	{"scopes_list", "scopes must be a comma-separated list of %s"},
	{"scopes_among", "scopes must be among %s"},
	{"team_not_found", "team not found"},
	{"member_not_found", "member not found"},
	{"key_not_found", "key not found"},
	{"session_not_found", "session not found"},

	// Webhooks and their deliveries.
	{"url_too_long", "url must be at most %d characters"},
	{"url_not_absolute_https", "url must be an absolute https URL"},
	{"url_not_https", "url must use https"},
	{"url_userinfo_or_fragment", "url must not carry user information or a fragment"},
	{"url_not_public", "url must not point at a loopback, private, link-local or other non-public address"},
	{"url_host_unresolved", "url host %s does not resolve"},
	{"url_host_not_public", "url host %s resolves to a non-public address"},
	{"events_none", "events must name at least one event type, or *"},
	{"events_star_alone", "events: * already covers every type"},
	{"event_type_unknown", "unknown event type %q"},
	{"event_type_unknown_known", "unknown event type %q; known types: %s"},
	{"event_type_unknown_or_all", "unknown event type %q; known types: %s, or *"},
	{"max_rate_range", "max_rate must be between 1 and %d requests per second, or none"},
	{"webhook_not_found", "webhook not found"},
	{"webhook_named_not_found", "webhook %s not found"},
	{"webhook_deleted", "webhook %s is deleted"},
	{"webhook_not_active", "webhook %s is %s; only an active webhook can be tested"},
	{"webhook_deleted_no_replay", "webhook %s is deleted; its deliveries cannot be replayed"},
	{"webhook_disabled_no_replay", "webhook %s is disabled; enable it before replaying"},
	{"delivery_not_found", "delivery not found"},
	{"delivery_state", "delivery %s is %s"},
	{"delivery_changed", "delivery %s changed meanwhile"},
	{"delivery_not_finished", "delivery %s is %s; only finished deliveries (succeeded, failed, cancelled or skipped) can be replayed"},
	{"status_not_replayable", "status %s cannot be replayed; only failed, cancelled or skipped deliveries can"},
	{"replay_status_invalid", "status must name failed, cancelled or skipped"},
	{"since_invalid", "since must be a date (YYYY-MM-DD) or a date and time"},
	{"until_invalid", "until must be a date (YYYY-MM-DD) or a date and time"},
	{"until_before_since", "until must not be before since"},

	// The console's own: its sign-in and its forms.
	{"sign_in_first", "sign in first"},
	{"sign_in_expired", "the sign-in has expired; sign in again"},
	{"cross_site", "cross-site request refused"},
	{"form_unreadable", "the form could not be read"},
	{"form_incomplete", "the form is incomplete; reload the page"},
	{"form_already_sent", "this form was already sent"},
	{"form_other_team", "this form belongs to another team than the one you are now working in; reload the page"},

	// The operators' tool (cmd/admin): its flags.
	{"admin_from_to_dates", "--from and --to must be dates YYYY-MM-DD"},
	{"admin_webhook_no_change", "give --url, --events, --max-rate, --description or several"},
	{"admin_replay_target_missing", "replay needs --id, or --webhook and --status (failed, cancelled, skipped)"},
	{"admin_replay_target_both", "replay takes --id, or --webhook with --status, not both"},
}

// codeOf is the code of each format of messages.
var codeOf = func() map[string]string {
	m := make(map[string]string, len(messages))
	codes := make(map[string]bool, len(messages))
	for _, msg := range messages {
		if _, dup := m[msg.Format]; dup || codes[msg.Code] || msg.Code == "" {
			panic(fmt.Sprintf("patio: message %q (%q) is not unique", msg.Code, msg.Format))
		}
		m[msg.Format], codes[msg.Code] = msg.Code, true
	}
	return m
}()

// Messages returns every message, in the order of its table (grouped by area).
func Messages() []Message { return append([]Message(nil), messages...) }

// CodeOf returns the code of the message formatted from format, and "" for a format that is not in
// the table (its error carries the English message only).
func CodeOf(format string) string { return codeOf[format] }
