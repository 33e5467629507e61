"""Schemathesis hooks for Patio's fuzz run (dev/fuzz/schemathesis.toml; README.md, "Fuzzing").

filter_failure: the positive_data_acceptance check fails when the API refuses a request that
openapi.yaml says is valid. Patio refuses some such requests on purpose, for rules a schema
cannot state (README.md and openapi.yaml's descriptions state them); the hook drops exactly those failures and keeps every other one, so a schema looser
than the server (a format, a bound, a header the schema lets through) still fails the run.

map_case: so that generated records get created and the operations on one record reach stored
ones, a valid (positive) case gets what a schema cannot generate: money in whole cents, correct
CPF, CNPJ and RENAVAM check digits, only the document of the client's type, a deal's client and
vehicle among the ones this run created (after_call records them), and an Idempotency-Key of its
own per body. Invalid (negative) cases are sent as generated.
"""

import hashlib
import json

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData

# List parameters whose remaining rules are beyond the schema: a range's start must not be after
# its end (created_from/created_to, price_min/price_max, value_min/value_max, year_min/year_max:
# a reversed range is a 400 naming both ends), money filters have at most 2 decimal places (openapi.yaml does not use multipleOf
# for money), and a CPF or CNPJ of the right shape can still have wrong check digits.
# A cursor is opaque and tamper-evident: only one the API issued, for the same query, is accepted
# (openapi.yaml's description of cursor), which no schema can say of a string.
QUERY_RULES_BEYOND_SCHEMA = {"created_from", "created_to", "year_min", "year_max", "price_min", "price_max", "value_min", "value_max", "cpf", "cnpj", "cursor",
                             "updated_since",  # a date of the right shape can still not exist (2026-02-30)
                             "page",  # page x limit <= 10,000: the largest page depends on limit
                             "q"}  # q needs a letter or digit of any script, which no portable pattern names

# Money members and filters: at most 2 decimal places, which the schema does not say (no multipleOf).
MONEY = ("price", "purchase_price", "value", "price_min", "price_max", "value_min", "value_max")

# The ids of the clients and vehicles this run created, in order.
CREATED = {"clients": [], "vehicles": []}


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep a failure unless one of the API's documented rules explains it (returning False drops it)."""
    if not isinstance(failure, RejectedPositiveData):
        return True
    return not (mislabelled(case) or refused_by_rule(case, response))


def mislabelled(case):
    """A case marked positive with a component generated as negative is not schema-valid.

    Schemathesis 4's coverage phase labels its default test case positive even when it fills a
    header whose pattern it cannot satisfy (If-None-Match: 0).
    """
    components = case.meta.components.values() if case.meta else ()
    return any(not info.mode.is_positive for info in components)


def is_positive(case):
    """Whether the case is valid for the schema, all its parts included."""
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive and not mislabelled(case)


def refused_by_rule(case, response):
    """Whether a documented rule refuses this schema-valid request with this status."""
    method = case.operation.method.upper()
    headers = {k.lower() for k in (case.headers or {})}
    writes = method in ("POST", "PUT", "DELETE")
    if response.status_code == 412:
        # If-Match named no current revision of the record (optimistic concurrency).
        return writes and "if-match" in headers
    if response.status_code == 422:
        # A conflict with stored state: a duplicate plate, CPF or CNPJ, a missing or inactive
        # client, a sold vehicle, a transition not allowed, an Idempotency-Key reused.
        return method in ("POST", "PUT")
    if response.status_code != 400:
        return False
    details = problems(response)
    if not details:
        return False
    if method in ("POST", "PUT"):
        # Body rules beyond the schema: check digits, area codes, years up to next year,
        # rules between fields, text that is blank or holds control characters.
        # A refused header or query parameter is never explained this way.
        return all(d.get("in") == "body" for d in details)
    if method == "GET" and "{id}" not in case.operation.path:
        return all(d.get("in") == "query" and d.get("field") in QUERY_RULES_BEYOND_SCHEMA for d in details)
    return False


def problems(response):
    """The error.details of a 400 envelope, or []."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return []
    details = (body.get("error") or {}).get("details") if isinstance(body, dict) else None
    return details if isinstance(details, list) else []


@schemathesis.hook
def map_case(context, case):
    """Give a valid case what the API asks beyond the schema (see the module's doc)."""
    if not is_positive(case):
        return case
    method, path = case.operation.method.upper(), case.operation.path
    body = case.body if isinstance(case.body, dict) else None
    for values in (body, case.query):
        for name in MONEY:
            if values is not None:
                cents(values, name)
    if path.startswith("/api/v1/clients") and body is not None:
        if method == "POST":
            one_document(body)
        fix(body, "cpf", cpf_digits)
        fix(body, "cnpj", cnpj_digits)
    if path.startswith("/api/v1/vehicles") and body is not None:
        fix(body, "renavam", renavam_digit)
    if path.startswith("/api/v1/deals") and body is not None:
        for name, kind in (("client_id", "clients"), ("vehicle_id", "vehicles")):
            if isinstance(body.get(name), str) and CREATED[kind]:
                body[name] = CREATED[kind][int(hashlib.sha256(body[name].encode()).hexdigest(), 16) % len(CREATED[kind])]
    if method == "GET" and path == "/api/v1/clients" and case.query:
        fix(case.query, "cpf", cpf_digits)
        fix(case.query, "cnpj", cnpj_digits)
    if method == "POST" and case.headers and "Idempotency-Key" in case.headers:
        # One key per body: a key reused with another body is a 422 that creates nothing.
        digest = hashlib.sha256(json.dumps(case.body, sort_keys=True, default=str).encode()).hexdigest()[:16]
        case.headers["Idempotency-Key"] = case.headers["Idempotency-Key"][:238] + "-" + digest
    return case


@schemathesis.hook
def after_call(context, case, response):
    """Record the clients and vehicles created, for map_case to put in deals."""
    kind = case.operation.path.rsplit("/", 1)[-1]
    if response.status_code != 201 or case.operation.method.upper() != "POST" or kind not in CREATED:
        return
    try:
        record = json.loads(response.content)["data"]
    except (ValueError, KeyError, TypeError):
        return
    if isinstance(record, dict) and isinstance(record.get("id"), str) and record["id"] not in CREATED[kind]:
        CREATED[kind].append(record["id"])


def cents(values, name):
    value = values.get(name)
    if isinstance(value, float):
        values[name] = round(value, 2)


def one_document(body):
    """Keep only the members the client's type allows, and its document."""
    if body.get("type") == "individual":
        for name in ("cnpj", "trade_name", "state_registration"):
            body.pop(name, None)
        if not isinstance(body.get("cpf"), str):
            body["cpf"] = "000.000.000-00"
    elif body.get("type") == "company":
        for name in ("cpf", "birth_date"):
            body.pop(name, None)
        if not isinstance(body.get("cnpj"), str):
            body["cnpj"] = "00.000.000/0000-00"


def fix(values, name, digits):
    """Rewrite the check digits of values[name], a document in one of its accepted spellings."""
    value = values.get(name)
    if isinstance(value, str):
        values[name] = digits(value)


def rewrite(value, positions, new):
    chars = list(value)
    for i, c in zip(positions, new):
        chars[i] = c
    return "".join(chars)


def mod11(total):
    return "0" if total % 11 < 2 else str(11 - total % 11)


def cpf_digits(value):
    """A CPF with the digits of value and valid check digits (not all digits equal)."""
    pos = [i for i, c in enumerate(value) if c.isascii() and c.isdigit()]
    if len(pos) != 11:
        return value
    d = [value[i] for i in pos[:9]]
    if len(set(d)) == 1:
        d[0] = str((int(d[0]) + 1) % 10)
    d.append(mod11(sum(int(c) * w for c, w in zip(d, range(10, 1, -1)))))
    d.append(mod11(sum(int(c) * w for c, w in zip(d, range(11, 1, -1)))))
    return rewrite(value, pos, d)


def cnpj_digits(value):
    """A CNPJ with the characters of value and valid check digits (not all zeros)."""
    pos = [i for i, c in enumerate(value) if c.isascii() and c.isalnum()]
    if len(pos) != 14:
        return value
    d = [value[i].upper() for i in pos[:12]]
    if d == ["0"] * 12:
        d[0] = "1"
    weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    d.append(mod11(sum((ord(c) - 48) * w for c, w in zip(d, weights[1:]))))
    d.append(mod11(sum((ord(c) - 48) * w for c, w in zip(d, weights))))
    return rewrite(value, pos, d)


def renavam_digit(value):
    """A RENAVAM with the digits of value and a valid check digit."""
    pos = [i for i, c in enumerate(value) if c.isascii() and c.isdigit()]
    if len(pos) != 11:
        return value
    total = sum(int(value[i]) * w for i, w in zip(pos, [3, 2, 9, 8, 7, 6, 5, 4, 3, 2]))
    return rewrite(value, pos[10:], [str(total * 10 % 11 % 10)])
