package httpapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// This file is the edge's half of validation: it turns a JSON body or a query string into the
// domain's typed input, checking only what the wire format says (JSON types, number and date
// syntax, unknown and server-managed members, unknown parameters). Values are the domain's to
// judge (lengths, enums, check digits, ranges, rules between fields).

// body is a JSON request body split into its top-level members.
type body map[string]json.RawMessage

// serverFields are managed by the server; a body that sends one is 400.
var serverFields = map[string]bool{
	"id": true, "team_id": true, "created_at": true, "updated_at": true,
	"closed_at": true, "sold_at": true, "sold_deal_id": true,
}

// member decodes one body member, by name.
type member struct {
	name   string
	decode func(p *patio.Problems, raw json.RawMessage)
}

// decodeMembers runs each member of obj through its decoder. Unknown and server-managed members
// are problems; prefix ("address.") names the members of a nested object, whose server-managed
// names are not reserved.
func decodeMembers(p *patio.Problems, prefix string, obj body, members ...member) {
	byName := make(map[string]member, len(members))
	for _, m := range members {
		byName[m.name] = m
	}
	for _, k := range sortedKeys(obj) {
		raw := obj[k]
		if prefix == "" && serverFields[k] {
			p.Add(patio.InBody, k, "%s is managed by the server and cannot be sent", k)
			continue
		}
		m, ok := byName[prefix+k]
		if !ok {
			p.Add(patio.InBody, prefix+k, "unknown field %s%s", prefix, k)
			continue
		}
		m.decode(p, raw)
	}
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// opt builds a member that handles null itself and hands any other value to parse, which returns
// false (having recorded the problem) when the value is not of the member's type.
func opt[T any](name string, dst *patio.Opt[T], parse func(p *patio.Problems, raw json.RawMessage) (T, bool)) member {
	return member{name: name, decode: func(p *patio.Problems, raw json.RawMessage) {
		if isNull(raw) {
			*dst = patio.Null[T]()
			return
		}
		if v, ok := parse(p, raw); ok {
			*dst = patio.Some(v)
		}
	}}
}

func rawString(p *patio.Problems, name string, raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		p.Add(patio.InBody, name, "%s must be a string", name)
		return "", false
	}
	return s, true
}

// text is a string member.
func text(name string, dst *patio.Opt[string]) member {
	return opt(name, dst, func(p *patio.Problems, raw json.RawMessage) (string, bool) { return rawString(p, name, raw) })
}

// integer is a whole JSON number, however it is written: 2000, 2000.0 and 2e3 are the same
// integer, as for openapi.yaml's JSON Schema `integer`. One beyond int32 is out of range.
func integer(name string, dst *patio.Opt[int]) member {
	return opt(name, dst, func(p *patio.Problems, raw json.RawMessage) (int, bool) {
		n, whole, fits := wholeNumber(strings.TrimSpace(string(raw)))
		switch {
		case !whole:
			p.Add(patio.InBody, name, "%s must be an integer", name)
		case !fits:
			p.Add(patio.InBody, name, "%s is out of range", name)
		}
		return n, whole && fits
	})
}

// wholeNumber reads a JSON value: whether it is a number whose value is whole, and that value
// when it fits an int32. The literal is short (scanJSON bounds it), and a large exponent is never
// expanded.
func wholeNumber(s string) (n int, whole, fits bool) {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, false, false
	}
	mantissa, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mantissa = s[:i]
		var err error
		if exp, err = strconv.ParseInt(strings.TrimPrefix(s[i+1:], "+"), 10, 32); err != nil {
			exp = math.MaxInt32 // beyond any int32 either way: a huge value or a tiny fraction
			if strings.HasPrefix(s[i+1:], "-") {
				exp = math.MinInt32
			}
		}
	}
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(mantissa, "-"), ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	for strings.HasSuffix(digits, "0") {
		digits, exp = digits[:len(digits)-1], exp+1
	}
	switch {
	case digits == "":
		return 0, true, true
	case exp < 0:
		return 0, false, false
	case int64(len(digits))+exp > 10:
		return 0, true, false
	}
	v, err := strconv.ParseInt(digits+strings.Repeat("0", int(exp)), 10, 64)
	if s[0] == '-' {
		v = -v
	}
	if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, true, false
	}
	return int(v), true, true
}

// amount is an exact money amount (a JSON number, at most 2 decimal places, in money's range).
func amount(name string, dst *patio.Opt[money.Cents]) member {
	return opt(name, dst, func(p *patio.Problems, raw json.RawMessage) (money.Cents, bool) {
		c, err := money.Parse(strings.TrimSpace(string(raw)))
		if err != nil {
			p.Add(patio.InBody, name, "%s must be a number from 0 to 999999999.99 with at most 2 decimal places", name) // money.ErrFormat
			return 0, false
		}
		return c, true
	})
}

// date is a YYYY-MM-DD string.
func date(name string, dst *patio.Opt[patio.Date]) member {
	return opt(name, dst, func(p *patio.Problems, raw json.RawMessage) (patio.Date, bool) {
		s, ok := rawString(p, name, raw)
		if !ok {
			return patio.Date{}, false
		}
		d, err := patio.ParseDate(s)
		if err != nil {
			p.Add(patio.InBody, name, "%s must be a date in the form YYYY-MM-DD", name)
			return patio.Date{}, false
		}
		return d, true
	})
}

// object is a nested JSON object whose members are decoded by members (named name+"."+member).
func object[T any](name string, dst *patio.Opt[T], members func(*T) []member) member {
	return opt(name, dst, func(p *patio.Problems, raw json.RawMessage) (T, bool) {
		var v T
		var obj body
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
			p.Add(patio.InBody, name, "%s must be an object", name)
			return v, false
		}
		n := p.Len()
		decodeMembers(p, name+".", obj, members(&v)...)
		return v, p.Len() == n
	})
}

// decodeBody decodes a body with members into the input: the input and the problems found.
func decodeBody(b body, members ...member) error {
	var p patio.Problems
	decodeMembers(&p, "", b, members...)
	return p.Err()
}

// decodeVehicle reads a vehicle body (openapi.yaml's VehicleCreate and VehicleUpdate).
func decodeVehicle(b body) (patio.VehicleInput, error) {
	var in patio.VehicleInput
	err := decodeBody(b,
		text("title", &in.Title), text("brand", &in.Brand), text("model", &in.Model),
		text("version", &in.Version), text("plate", &in.Plate), text("renavam", &in.Renavam),
		text("vin", &in.VIN), integer("manufacture_year", &in.ManufactureYear),
		integer("model_year", &in.ModelYear), integer("mileage_km", &in.MileageKm),
		text("color", &in.Color), text("fuel", &in.Fuel), text("transmission", &in.Transmission),
		amount("price", &in.Price), amount("purchase_price", &in.PurchasePrice),
		text("phase", &in.Phase), text("status", &in.Status), text("description", &in.Description),
	)
	return in, err
}

// decodeClient reads a client body (openapi.yaml's ClientCreate and ClientUpdate).
func decodeClient(b body) (patio.ClientInput, error) {
	var in patio.ClientInput
	err := decodeBody(b,
		text("type", &in.Type), text("name", &in.Name), text("trade_name", &in.TradeName),
		text("cpf", &in.CPF), text("cnpj", &in.CNPJ), text("email", &in.Email), text("phone", &in.Phone),
		date("birth_date", &in.BirthDate), text("state_registration", &in.StateRegistration),
		object("address", &in.Address, func(a *patio.AddressInput) []member {
			return []member{
				text("address.street", &a.Street), text("address.number", &a.Number),
				text("address.complement", &a.Complement), text("address.district", &a.District),
				text("address.city", &a.City), text("address.state", &a.State), text("address.zip_code", &a.ZipCode),
			}
		}),
		text("notes", &in.Notes), text("status", &in.Status),
	)
	return in, err
}

// decodeDeal reads a deal body (openapi.yaml's DealCreate and DealUpdate).
func decodeDeal(b body) (patio.DealInput, error) {
	var in patio.DealInput
	err := decodeBody(b,
		text("title", &in.Title), text("client_id", &in.ClientID), text("vehicle_id", &in.VehicleID),
		amount("value", &in.Value), text("phase", &in.Phase), text("status", &in.Status),
		text("lost_reason", &in.LostReason), text("payment_method", &in.PaymentMethod),
		date("expected_close_date", &in.ExpectedCloseDate), text("notes", &in.Notes),
	)
	return in, err
}

// param decodes one query parameter's value. A repeatable parameter (an enum filter) may be given
// several times, meaning its values joined by commas; any other given twice is a problem.
type param struct {
	name       string
	decode     func(p *patio.Problems, v string)
	repeatable bool
}

// decodeQuery runs each parameter of values through its decoder. Unknown and repeated parameters
// are problems.
func decodeQuery(values url.Values, params ...param) error {
	var p patio.Problems
	byName := make(map[string]param, len(params))
	for _, pr := range params {
		byName[pr.name] = pr
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		pr, ok := byName[name]
		switch {
		case !ok:
			p.Add(patio.InQuery, name, "unknown query parameter %s", name)
		case len(values[name]) != 1 && !pr.repeatable:
			p.Add(patio.InQuery, name, "%s must be given once", name)
		default:
			pr.decode(&p, strings.Join(values[name], ","))
		}
	}
	return p.Err()
}

// listParams are the parameters every list shares; values are the whole query, which a cursor must
// belong to.
func listParams(q *patio.ListQuery, values url.Values) []param {
	return []param{
		{name: "cursor", decode: func(p *patio.Problems, v string) {
			c, err := decodeCursor(v, values)
			if err != nil {
				p.AddError(patio.InQuery, "cursor", err)
				return
			}
			q.Page, q.After = patio.Some(c.Page), c.After
		}},
		{name: "updated_since", decode: func(p *patio.Problems, v string) {
			if ts, err := patio.ParseTimestamp(v); err == nil {
				q.UpdatedSince = &ts
			} else if d, err := patio.ParseDate(v); err == nil {
				ts := patio.NewTimestamp(d.Start())
				q.UpdatedSince = &ts
			} else {
				p.Add(patio.InQuery, "updated_since", "updated_since must be a timestamp (YYYY-MM-DDTHH:MM:SSZ) or a date (YYYY-MM-DD)")
			}
		}},
		{name: "page", decode: func(p *patio.Problems, v string) {
			if n, ok := plainInt(v); ok {
				q.Page = patio.Some(n)
			} else if allDigits(v) {
				p.Add(patio.InQuery, "page", "page must be at most %d", math.MaxInt32)
			} else {
				p.Add(patio.InQuery, "page", "page must be an integer of at least 1")
			}
		}},
		{name: "limit", decode: func(p *patio.Problems, v string) {
			if n, ok := plainInt(v); ok {
				q.Limit = patio.Some(n)
			} else {
				p.Add(patio.InQuery, "limit", "limit must be between 1 and %d", patio.MaxLimit)
			}
		}},
		{name: "sort", decode: func(p *patio.Problems, v string) {
			q.Sort, q.Desc = strings.TrimPrefix(v, "-"), strings.HasPrefix(v, "-")
			if q.Sort == "" {
				p.Add(patio.InQuery, "sort", "sort must name a field, optionally prefixed with -")
			}
		}},
		dateParam("created_from", &q.CreatedFrom),
		dateParam("created_to", &q.CreatedTo),
		listParam("status", &q.Status),
	}
}

func dateParam(name string, dst **patio.Date) param {
	return param{name: name, decode: func(p *patio.Problems, v string) {
		d, err := patio.ParseDate(v)
		if err != nil {
			p.Add(patio.InQuery, name, "%s must be a date in the form YYYY-MM-DD", name)
			return
		}
		*dst = &d
	}}
}

// listParam is a comma-separated list of values (an enum filter), without repeats; the parameter
// may also be repeated (status=a&status=b is status=a,b).
func listParam(name string, dst *[]string) param {
	return param{name: name, repeatable: true, decode: func(_ *patio.Problems, v string) {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); !contains(out, s) {
				out = append(out, s)
			}
		}
		*dst = out
	}}
}

// plainInt reads a whole number written as plain digits (no sign, no space) that fits an int32.
func plainInt(v string) (int, bool) {
	if !allDigits(v) {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int(n), err == nil
}

func allDigits(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// stringParam is a free-text or identifier parameter, handed to the domain as sent.
func stringParam(name string, dst **string) param {
	return param{name: name, decode: func(_ *patio.Problems, v string) { *dst = &v }}
}

func moneyParam(name string, dst **money.Cents) param {
	return param{name: name, decode: func(p *patio.Problems, v string) {
		c, err := money.Parse(v)
		if err != nil {
			p.Add(patio.InQuery, name, "%s must be a number from 0 to 999999999.99 with at most 2 decimal places", name) // money.ErrFormat
			return
		}
		*dst = &c
	}}
}

func intParam(name string, dst **int) param {
	return param{name: name, decode: func(p *patio.Problems, v string) {
		n, ok := plainInt(v)
		if !ok {
			p.Add(patio.InQuery, name, "%s must be an integer", name)
			return
		}
		*dst = &n
	}}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// decodeVehicleQuery reads a vehicle list's query string.
func decodeVehicleQuery(values url.Values) (patio.VehicleQuery, error) {
	var q patio.VehicleQuery
	err := decodeQuery(values, append(listParams(&q.ListQuery, values),
		listParam("phase", &q.Phase), listParam("fuel", &q.Fuel),
		stringParam("brand", &q.Brand), stringParam("model", &q.Model), stringParam("q", &q.Q),
		moneyParam("price_min", &q.PriceMin), moneyParam("price_max", &q.PriceMax),
		intParam("year_min", &q.YearMin), intParam("year_max", &q.YearMax), stringParam("plate", &q.Plate),
	)...)
	return withChecks(q, err)
}

// decodeClientQuery reads a client list's query string.
func decodeClientQuery(values url.Values) (patio.ClientQuery, error) {
	var q patio.ClientQuery
	err := decodeQuery(values, append(listParams(&q.ListQuery, values),
		listParam("type", &q.Type), stringParam("q", &q.Q), stringParam("cpf", &q.CPF), stringParam("cnpj", &q.CNPJ),
	)...)
	return withChecks(q, err)
}

// decodeDealQuery reads a deal list's query string.
func decodeDealQuery(values url.Values) (patio.DealQuery, error) {
	var q patio.DealQuery
	err := decodeQuery(values, append(listParams(&q.ListQuery, values),
		listParam("phase", &q.Phase), moneyParam("value_min", &q.ValueMin), moneyParam("value_max", &q.ValueMax),
		stringParam("client_id", &q.ClientID), stringParam("vehicle_id", &q.VehicleID), stringParam("q", &q.Q),
	)...)
	return withChecks(q, err)
}

// DecodeVehicle reads a JSON vehicle body into the domain's typed input, as the API does: a body
// that is not one JSON object, or whose members have the wrong JSON types, is KindInvalid.
func DecodeVehicle(data []byte) (patio.VehicleInput, error) { return decodeJSON(data, decodeVehicle) }

// DecodeClient reads a JSON client body into the domain's typed input, as the API does.
func DecodeClient(data []byte) (patio.ClientInput, error) { return decodeJSON(data, decodeClient) }

// DecodeDeal reads a JSON deal body into the domain's typed input, as the API does.
func DecodeDeal(data []byte) (patio.DealInput, error) { return decodeJSON(data, decodeDeal) }

func decodeJSON[In any](data []byte, decode func(body) (In, error)) (In, error) {
	b, err := parseBody(data)
	if err != nil {
		var zero In
		return zero, err
	}
	return decode(b)
}

// withChecks returns q and err, with the domain's problems of q's other parameters listed beside
// the edge's when the edge found some (the domain checks them again when the query is served).
func withChecks[Q interface{ Check() (Q, error) }](q Q, err error) (Q, error) {
	if err == nil {
		return q, nil
	}
	_, verr := q.Check()
	return q, merge(err, verr)
}

// sortedKeys returns a body's member names in order.
func sortedKeys(b body) []string { return slices.Sorted(maps.Keys(b)) }
