#!/usr/bin/python3
"""Checks real answers of the platform API against its OpenAPI 3.1 description.

    openapi_check.py OPENAPI.yaml EXCHANGES.jsonl [--not-served "METHOD /path"]... [--no-coverage]

First the description itself: its structure as an OpenAPI 3.1 document (the subset this
project uses: the meta-schema below, every $ref resolving, every path template's parameters
declared, unique operationIds, known security schemes, each operation's security either none
or the bearer scheme with one of its x-scopes) and every schema in it with
Draft202012Validator.check_schema. Then each exchange, one JSON object a line:

    {"method", "template", "target", "status", "content_type", "headers": {lower-case name: value},
     "request_body", "body"}

Its target's path must be the described path `template` (a `{param}` is one raw segment), its
method described there (else it must be the 405 of x-tuneplane-fallbacks.other_method, with
`Allow` naming exactly the described methods; an undescribed path must be the 404 of
x-tuneplane-fallbacks.unknown_path), its status listed for the operation, its content type
the described one, its required headers present and valid, its body valid against that
status's schema ($refs resolved against the whole document). A 2xx exchange's request body
and query parameters must also match what the operation describes; a 403's message must name
the scope the operation's security gives. Last, unless
--no-coverage, every described operation must have been exercised, except those named with
--not-served (which must be described, and must not have been exercised: a stale exemption
is an error too).

Every failure is printed as one line naming the route and the field; the exit status is 0
when there is none, 1 otherwise, 2 when the files cannot be read.
"""

import argparse
import json
import re
import sys
import urllib.parse

import jsonschema
import yaml

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

_REF = {"type": "object", "required": ["$ref"], "properties": {"$ref": {"type": "string"}}}


def _either_ref(schema):
    return {"if": {"required": ["$ref"]}, "then": _REF, "else": schema}


_MEDIA = {
    "type": "object",
    "required": ["schema"],
    "properties": {"schema": {"type": ["object", "boolean"]}},
}
_CONTENT = {
    "type": "object",
    "minProperties": 1,
    "propertyNames": {"pattern": r"^[a-z]+/[a-z0-9.+*-]+(\s*;.*)?$"},
    "additionalProperties": _MEDIA,
}
_HEADER = _either_ref(
    {
        "type": "object",
        "required": ["schema"],
        "not": {"anyOf": [{"required": ["name"]}, {"required": ["in"]}]},
        "properties": {"required": {"type": "boolean"}, "schema": {"type": ["object", "boolean"]}},
    }
)
_PARAMETER = _either_ref(
    {
        "type": "object",
        "required": ["name", "in", "schema"],
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "in": {"enum": ["query", "header", "path", "cookie"]},
            "required": {"type": "boolean"},
            "schema": {"type": ["object", "boolean"]},
        },
        "if": {"properties": {"in": {"const": "path"}}},
        "then": {"required": ["required"], "properties": {"required": {"const": True}}},
    }
)
_RESPONSE = _either_ref(
    {
        "type": "object",
        "required": ["description"],
        "additionalProperties": False,
        "patternProperties": {"^x-": {}},
        "properties": {
            "description": {"type": "string"},
            "headers": {"type": "object", "additionalProperties": _HEADER},
            "content": _CONTENT,
            "links": {"type": "object"},
        },
    }
)
_REQUEST_BODY = _either_ref(
    {
        "type": "object",
        "required": ["content"],
        "properties": {"description": {"type": "string"}, "required": {"type": "boolean"}, "content": _CONTENT},
    }
)
_SECURITY = {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "array"}}}
_OPERATION = {
    "type": "object",
    "required": ["responses"],
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "summary": {"type": "string"},
        "description": {"type": "string"},
        "operationId": {"type": "string"},
        "parameters": {"type": "array", "items": _PARAMETER},
        "requestBody": _REQUEST_BODY,
        "responses": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^([1-5][0-9X]{2}|default|x-.*)$"},
            "additionalProperties": _RESPONSE,
        },
        "deprecated": {"type": "boolean"},
        "security": _SECURITY,
        "servers": {"type": "array"},
        "callbacks": {"type": "object"},
        "externalDocs": {"type": "object"},
    },
}
_PATH_ITEM = {
    "type": "object",
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},
    "properties": dict(
        {m: _OPERATION for m in METHODS},
        summary={"type": "string"},
        description={"type": "string"},
        parameters={"type": "array", "items": _PARAMETER},
        servers={"type": "array"},
    ),
}

# The structure of an OpenAPI 3.1 document, as far as this project uses it (the fixed fields
# of the specification's objects; extensions `x-` where the specification allows them).
OPENAPI_31_STRUCTURE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["openapi", "info", "paths"],
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},
    "properties": {
        "openapi": {"type": "string", "pattern": r"^3\.1\.\d+$"},
        "info": {
            "type": "object",
            "required": ["title", "version"],
            "properties": {
                "title": {"type": "string"},
                "version": {"type": "string"},
                "license": {"type": "object", "required": ["name"]},
            },
        },
        "jsonSchemaDialect": {"type": "string"},
        "servers": {"type": "array", "items": {"type": "object", "required": ["url"]}},
        "security": _SECURITY,
        "tags": {"type": "array", "items": {"type": "object", "required": ["name"]}},
        "externalDocs": {"type": "object"},
        "webhooks": {"type": "object"},
        "paths": {
            "type": "object",
            "propertyNames": {"pattern": "^(/|x-)"},
            "additionalProperties": _PATH_ITEM,
        },
        "components": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {"^x-": {}},
            "properties": {
                "schemas": {"type": "object", "additionalProperties": {"type": ["object", "boolean"]}},
                "responses": {"type": "object", "additionalProperties": _RESPONSE},
                "parameters": {"type": "object", "additionalProperties": _PARAMETER},
                "requestBodies": {"type": "object", "additionalProperties": _REQUEST_BODY},
                "headers": {"type": "object", "additionalProperties": _HEADER},
                "securitySchemes": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"enum": ["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"]}},
                        "if": {"properties": {"type": {"const": "http"}}},
                        "then": {"required": ["scheme"]},
                    },
                },
                "examples": {"type": "object"},
                "links": {"type": "object"},
                "callbacks": {"type": "object"},
                "pathItems": {"type": "object"},
            },
        },
    },
}


def where(path):
    """A jsonschema error path as `a.b[0].c` ('$' for the whole)."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def shorter(message, limit=300):
    """A message cut to `limit` characters: jsonschema's quote whole instances."""
    return message if len(message) <= limit else message[: limit - 3] + "..."


class Description:
    def __init__(self, doc):
        self.doc = doc
        self.resolver = jsonschema.RefResolver(base_uri="", referrer=doc)

    def deref(self, node):
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 16:
            node = self.resolver.resolve(node["$ref"])[1]
            seen += 1
        return node

    def errors(self, schema, instance):
        """Every way `instance` fails `schema`, as 'path: message' lines."""
        validator = jsonschema.Draft202012Validator(schema, resolver=self.resolver)
        lines = []
        for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
            message = error.message
            if error.validator in ("oneOf", "anyOf"):
                message = f"matches none of the {error.validator} alternatives"
            line = f"{where(error.absolute_path)}: {shorter(message)}"
            if error.context:
                # Of the alternatives (oneOf, anyOf), name what failed inside those whose type
                # did fit: that is where the answer went wrong.
                inner = [e for e in error.context if e.relative_path or e.validator not in ("type", "const")]
                shown = inner[:3] or [jsonschema.exceptions.best_match(error.context)]
                line += " (" + "; ".join(f"{where(e.absolute_path)}: {shorter(e.message)}" for e in shown) + ")"
            lines.append(line)
        return lines

    def operations(self):
        for path, item in self.doc.get("paths", {}).items():
            if path.startswith("x-"):
                continue
            for method in METHODS:
                if method in item:
                    yield path, method, item[method]


def check_document(doc):
    problems = []
    meta = jsonschema.Draft202012Validator(OPENAPI_31_STRUCTURE)
    for error in meta.iter_errors(doc):
        problems.append(f"the description: {where(error.absolute_path)}: {error.message}")
    if problems:
        return problems
    description = Description(doc)

    def visit(node, at):
        if isinstance(node, dict):
            if "$ref" in node and isinstance(node["$ref"], str):
                try:
                    description.resolver.resolve(node["$ref"])
                except jsonschema.RefResolutionError as error:
                    problems.append(f"the description: {at}: $ref {node['$ref']} does not resolve: {error}")
            for key, value in node.items():
                visit(value, f"{at}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                visit(value, f"{at}[{i}]")

    visit(doc, "$")

    schemas = [(f"components.schemas.{k}", v) for k, v in doc.get("components", {}).get("schemas", {}).items()]

    def media_schemas(node, at):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "schema" and isinstance(value, (dict, bool)):
                    schemas.append((f"{at}.schema", value))
                elif key != "schemas":
                    media_schemas(value, f"{at}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                media_schemas(value, f"{at}[{i}]")

    media_schemas(doc.get("paths", {}), "paths")
    media_schemas({k: v for k, v in doc.get("components", {}).items() if k != "schemas"}, "components")
    for at, schema in schemas:
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append(f"the description: {at}: not a JSON Schema 2020-12 schema: {error.message}")

    schemes = doc.get("components", {}).get("securitySchemes", {})
    scopes = schemes.get("bearer", {}).get("x-scopes", {})
    ids = {}
    for path, method, operation in description.operations():
        route = f"{method.upper()} {path}"
        security = operation.get("security", doc.get("security", []))
        for requirement in security:
            for name in requirement:
                if name not in schemes:
                    problems.append(f"the description: {route}: security scheme {name} is not in components")
        if security and required_scope(operation, doc) not in scopes:
            problems.append(f"the description: {route}: security must be the bearer scheme with one of its "
                            f"x-scopes ({', '.join(scopes)})")
        op_id = operation.get("operationId")
        if op_id in ids:
            problems.append(f"the description: {route}: operationId {op_id} is also {ids[op_id]}'s")
        ids[op_id] = route
        declared = {
            description.deref(p)["name"]
            for p in doc["paths"][path].get("parameters", []) + operation.get("parameters", [])
            if description.deref(p)["in"] == "path"
        }
        for name in re.findall(r"\{([^}]+)\}", path):
            if name not in declared:
                problems.append(f"the description: {route}: path parameter {{{name}}} is not declared")
    return problems


def required_scope(operation, doc):
    """The one scope of the bearer scheme an operation's security names, or None."""
    named = [scope for requirement in operation.get("security", doc.get("security", []))
             for scope in requirement.get("bearer", [])]
    return named[0] if len(named) == 1 else None


def path_matches(template, path):
    want = template.split("/")
    got = path.split("/")
    if len(want) != len(got):
        return False
    for w, g in zip(want, got):
        if w.startswith("{") and w.endswith("}"):
            if not g:
                return False
        elif w != g:
            return False
    return True


def media_type(text):
    """'Text/Plain ; Version=0.0.4' -> 'text/plain;version=0.0.4'."""
    return ";".join(part.strip() for part in (text or "").lower().split(";") if part.strip())


def query_value(schema, text):
    """A query parameter's text as the JSON value its schema describes (integers as numbers)."""
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if "integer" in kinds and re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    return text


class ExchangeChecker:
    def __init__(self, description):
        self.d = description
        self.doc = description.doc
        self.paths = {p: item for p, item in self.doc["paths"].items() if not p.startswith("x-")}
        self.exercised = set()

    def check_response(self, route, response, exchange):
        problems = []
        response = self.d.deref(response)
        headers = exchange.get("headers", {})
        for name, header in response.get("headers", {}).items():
            header = self.d.deref(header)
            value = headers.get(name.lower())
            if value is None:
                if header.get("required"):
                    problems.append(f"{route}: header {name} is required but missing")
                continue
            for line in self.d.errors(header.get("schema", {}), value):
                problems.append(f"{route}: header {name}: {line}")
        content = response.get("content", {})
        if not content:
            if exchange.get("body"):
                problems.append(f"{route}: the answer has a body but none is described")
            return problems
        sent = media_type(exchange.get("content_type"))
        described = {media_type(k): v for k, v in content.items()}
        if sent not in described:
            problems.append(f"{route}: content type {exchange.get('content_type')!r} is not described "
                            f"(described: {', '.join(content)})")
            return problems
        body = exchange.get("body", "")
        if sent.split(";")[0].endswith("json"):
            try:
                body = json.loads(body)
            except ValueError as error:
                return problems + [f"{route}: the body is not JSON: {error}"]
        for line in self.d.errors(described[sent].get("schema", {}), body):
            problems.append(f"{route}: body {line}")
        return problems

    def check_request(self, route, path_item, operation, exchange):
        problems = []
        params = {}
        for p in path_item.get("parameters", []) + operation.get("parameters", []):
            p = self.d.deref(p)
            params[(p["in"], p["name"])] = p
        query = urllib.parse.parse_qsl(urllib.parse.urlsplit(exchange["target"]).query, keep_blank_values=True)
        for name, text in query:
            param = params.get(("query", name))
            if param is None:
                problems.append(f"{route}: request: query parameter {name} is not described")
                continue
            for line in self.d.errors(param["schema"], query_value(self.d.deref(param["schema"]), text)):
                problems.append(f"{route}: request: query parameter {name}: {line}")
        body_spec = self.d.deref(operation.get("requestBody")) if "requestBody" in operation else None
        text = exchange.get("request_body", "")
        if body_spec is None:
            if text.strip():
                problems.append(f"{route}: request: a body was sent but none is described")
            return problems
        if not text.strip():
            if body_spec.get("required"):
                problems.append(f"{route}: request: the body is required")
            return problems
        schema = body_spec["content"].get("application/json", {}).get("schema", {})
        try:
            value = json.loads(text)
        except ValueError as error:
            return problems + [f"{route}: request: the body is not JSON: {error}"]
        for line in self.d.errors(schema, value):
            problems.append(f"{route}: request: body {line}")
        return problems

    def check(self, exchange):
        method = exchange["method"].lower()
        status = str(exchange["status"])
        path = urllib.parse.urlsplit(exchange["target"]).path
        template = exchange.get("template", "")
        matching = [p for p in self.paths if path_matches(p, path)]
        fallbacks = self.doc.get("x-tuneplane-fallbacks", {})
        if not matching:
            route = f"{method.upper()} {path} {status}"
            if template in self.paths:
                return [f"{route}: the path does not match its template {template}"]
            if status != "404" or "unknown_path" not in fallbacks:
                return [f"{route}: the path is not described"]
            return self.check_response(route, fallbacks["unknown_path"], exchange)
        # A literal segment wins over a parameter: the most literal template is the route.
        matching.sort(key=lambda p: -sum(1 for s in p.split("/") if not s.startswith("{")))
        described = matching[0]
        route = f"{method.upper()} {described} {status}"
        if template and template != described:
            return [f"{route}: the target {exchange['target']} was meant as {template}"]
        item = self.paths[described]
        if method not in item:
            if status != "405" or "other_method" not in fallbacks:
                return [f"{route}: the method is not described for this path"]
            problems = self.check_response(route, fallbacks["other_method"], exchange)
            allowed = {m.strip().upper() for m in exchange.get("headers", {}).get("allow", "").split(",") if m.strip()}
            want = {m.upper() for m in METHODS if m in item}
            if allowed != want:
                problems.append(f"{route}: header Allow names {sorted(allowed)}, the description {sorted(want)}")
            return problems
        self.exercised.add((method, described))
        operation = item[method]
        responses = operation["responses"]
        response = responses.get(status) or responses.get(status[0] + "XX") or responses.get("default")
        if response is None:
            return [f"{route}: status {status} is not described for this operation "
                    f"(described: {', '.join(sorted(responses))})"]
        problems = self.check_response(route, response, exchange)
        if status.startswith("2"):
            problems += self.check_request(route, item, operation, exchange)
        if status == "403":
            scope = required_scope(operation, self.doc)
            try:
                message = json.loads(exchange.get("body", "")).get("message", "")
            except (ValueError, AttributeError):
                message = ""
            if f"`{scope}`" not in message:
                problems.append(f"{route}: the message does not name the scope `{scope}` the operation needs")
        return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("openapi")
    parser.add_argument("exchanges")
    parser.add_argument("--not-served", action="append", default=[], metavar="'METHOD /path'")
    parser.add_argument("--no-coverage", action="store_true")
    args = parser.parse_args(argv)
    try:
        with open(args.openapi, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        with open(args.exchanges, encoding="utf-8") as f:
            exchanges = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError, yaml.YAMLError) as error:
        print(f"openapi_check: {error}")
        return 2

    problems = check_document(doc)
    if problems:
        print("\n".join(problems))
        return 1
    checker = ExchangeChecker(Description(doc))
    for exchange in exchanges:
        problems += checker.check(exchange)

    if not args.no_coverage:
        exempt = set()
        for entry in args.not_served:
            method, _, path = entry.partition(" ")
            key = (method.lower(), path)
            if path not in checker.paths or key[0] not in checker.paths[path]:
                problems.append(f"{entry}: exempted from coverage but not described")
            elif key in checker.exercised:
                problems.append(f"{entry}: exempted from coverage but exercised; remove the exemption")
            exempt.add(key)
        for path, method, _ in checker.d.operations():
            if (method, path) not in checker.exercised and (method, path) not in exempt:
                problems.append(f"{method.upper()} {path}: described but never exercised")

    if problems:
        print("\n".join(problems))
        return 1
    print(f"openapi_check: {len(exchanges)} exchanges match {args.openapi}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
