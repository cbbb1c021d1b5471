"""The JSON schemas `tools/list` publishes: the contracts' own, every property described, nothing a model
does not need (titles; in the output schema descriptions and defaults too), so a model can call a tool
from its schema alone and the listing stays small (docs/mcp.md "Sizes").

The contract models (warehouse/search/contract.py, warehouse/dispatch/contract.py) stay as they are:
the descriptions their fields lack are added here, per property.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from warehouse.dispatch.contract import DispatchRequest
from warehouse.mcp.present import COMPACT_SNIPPET_CHARS, KEEP
from warehouse.search.contract import SearchRequest, response_json_schema

DETAILS = ("compact", "full")
DETAIL = {"enum": list(DETAILS), "default": "compact", "type": "string",
          "description": f"compact (default): ids, who, outcome, snippets cut to {COMPACT_SNIPPET_CHARS} "
                         "characters; full: every field (scores, why, sessions, skill paths)"}
_SEARCH = {
    "": {"schema": "knowledge.search/v1; may be omitted",
         "request_id": "your correlation id, echoed back",
         "query": "what to look for: plain text, 1-2000 characters (no query syntax)",
         "mode": "auto: routed by the query; find_agent: who did it; find_skill: which skill; find_code: which "
                 "code; find_knowledge: what is known about it",
         "filters": "narrow the search (empty: everything you may see)",
         "include": "lanes to search (default: all three)",
         "limit": "items in all lanes together (each included lane gets a share)",
         "budget": "size of the response",
         "provenance": "strict: items with snippets; locator: ids and places only, no snippets",
         "trace": "add timings and counters (never text)"},
    "Filters": {"workspaces": "only these workspaces (id, root path, folder name or title)",
                "session_ids": "only these sessions (episodes lane)",
                "actor_ids": "only these actors",
                "since": "RFC 3339 time with an offset: nothing older",
                "until": "RFC 3339 time with an offset: nothing newer",
                "outcome": "episode outcome",
                "skills": "only these skill names",
                "paths": "path prefixes (code lane)"},
    "RequestBudget": {"max_tokens": "hard cap of the response in tokens (~4 bytes each)",
                      "snippet_chars": "snippet length in characters (compact default "
                                       f"{COMPACT_SNIPPET_CHARS}, full 240)"},
}
_DISPATCH = {
    "": {"schema": "knowledge.dispatch/v1; may be omitted",
         "request_id": "your correlation id",
         "task": "what to hand over",
         "target": "'auto' (best fit), 'actor:<id>', or {mode, actor_id}",
         "actor_id": "an explicit actor (same as target 'actor:<id>')",
         "strategy": "best_fit, the only v1 strategy",
         "dry_run": "true (default): a plan only, nothing recorded",
         "commit": "record the plan (needs dry_run=false and confirm=true)",
         "confirm": "the explicit yes a commit needs",
         "dispatch_id": "idempotency key (1-200 of A-Za-z0-9._:@/+-); default: derived from the request",
         "context": "how much context the plan carries"},
    "Task": {"title": "short title (at most 200 characters)", "text": "the task (at most 4000 characters)",
             "description": "more detail (at most 4000 characters)", "acceptance": "acceptance criteria",
             "constraints": "constraints to respect", "deadline": "RFC 3339 time with an offset"},
    "Target": {"mode": "auto: best fit; actor: the one in actor_id", "actor_id": "actor id (with mode=actor)",
               "count": "actors to pick (1 in v1)"},
    "ContextOptions": {"include_episodes": "prior episodes to include (0-10)",
                       "include_code": "code references to include (0-10)",
                       "include_skills": "include the skills that fit", "include_artifacts": "include artifacts",
                       "snippet_chars": "snippet length in characters"},
}


def input_schema(model: type[BaseModel], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """The model's JSON schema as a tool input schema; `optional` fields get defaults server-side. Titles
    ("Title Case" of each name) and null defaults tell a model nothing and go; `anyOf` with null is a type list."""
    schema = _nullable(_drop(model.model_json_schema(by_alias=True, mode="validation"), ("title",)))
    schema["type"] = "object"
    schema.setdefault("properties", {})
    required = [r for r in schema.get("required", []) if r not in optional]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema


def describe(schema: dict[str, Any], texts: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Fill in property descriptions the contract models lack: `texts[""]` for the top level,
    `texts[name]` for `$defs[name]`; a description the model already has is kept."""
    for where, props in texts.items():
        target = schema if not where else schema["$defs"][where]
        for name, text in props.items():
            target["properties"][name].setdefault("description", text)
    return schema


def search_input() -> dict[str, Any]:
    """`knowledge_search`: the `knowledge.search/v1` request (`schema` optional) plus `detail`."""
    schema = describe(input_schema(SearchRequest, optional=("schema",)), _SEARCH)
    schema["properties"]["detail"] = DETAIL
    return _inline_single_use(schema)


def dispatch_input() -> dict[str, Any]:
    """`knowledge_dispatch`: the `knowledge.dispatch/v1` request; `target` also as the string the contract takes."""
    schema = describe(input_schema(DispatchRequest, optional=("schema",)), _DISPATCH)
    target = schema["properties"]["target"]
    schema["properties"]["target"] = {"anyOf": [{"type": "string"}, {"$ref": target.pop("$ref")}], **target}
    return _inline_single_use(schema)


def search_output() -> dict[str, Any]:
    """The `knowledge.search/v1` response schema of the compact result, open to the full one's detail: each
    object of `present.KEEP` declares and requires only what a compact result keeps (every field seeds/003
    requires among them), and is open to more, as seeds/003 is (`lanes` stays closed, as there). Without
    annotations; null only where a response can hold one; a definition used once inlined. Both detail
    levels validate against it; the full one's own schema is `response_json_schema()`."""
    full = response_json_schema()
    for name, keep in KEEP.items():
        d = full["$defs"][name]
        d["properties"] = {k: v for k, v in d["properties"].items() if k in keep}
    schema = _walk(_nullable(_drop(full, ("title", "description", "default"))), _never_null)
    schema["title"] = full["title"]
    for name, keep in KEEP.items():
        d = schema["$defs"][name]
        d["required"] = [r for r in d.get("required", []) if r in keep and not _may_be_null(d["properties"][r])]
        if not d["required"]:
            del d["required"]
    schema = _walk(schema, lambda o: {k: v for k, v in o.items() if k != "additionalProperties" or v is not False})
    schema["$defs"]["Lanes"]["additionalProperties"] = False
    return _inline_single_use(schema)


def _walk(schema: Any, fix: Any) -> Any:
    """`fix` applied to every schema object in `schema`, innermost first (never to a `properties` or
    `$defs` map itself, so a property named like a keyword, a task's `title`, stays)."""
    if isinstance(schema, list):
        return [_walk(v, fix) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k in ("properties", "$defs") and isinstance(v, dict):
            out[k] = {name: _walk(sub, fix) for name, sub in v.items()}
        else:
            out[k] = v if k in ("const", "enum", "default", "examples", "required") else _walk(v, fix)
    return fix(out)


def _drop(schema: Any, keywords: tuple[str, ...]) -> Any:
    """`schema` without the annotation `keywords` (title, description, default) at any depth."""
    return _walk(schema, lambda o: {k: v for k, v in o.items() if k not in keywords})


def _nullable(schema: Any) -> Any:
    """`anyOf: [{type: T, …}, {type: null}]` → `{type: [T, null], …}` (the same values), and a null default
    dropped (it says no more than being optional)."""
    def fix(o: dict[str, Any]) -> dict[str, Any]:
        alts = o.get("anyOf")
        if (isinstance(alts, list) and len(alts) == 2 and alts[1] == {"type": "null"}
                and isinstance(alts[0].get("type"), str)):
            o = {**{k: v for k, v in o.items() if k != "anyOf"}, **alts[0], "type": [alts[0]["type"], "null"]}
        if "default" in o and o["default"] is None:
            o = {k: v for k, v in o.items() if k != "default"}
        return o
    return _walk(schema, fix)


def _may_be_null(prop: dict[str, Any]) -> bool:
    """Whether a property's schema admits null (a compact result leaves such a field out when it is)."""
    t = prop.get("type")
    return t == "null" or (isinstance(t, list) and "null" in t) or {"type": "null"} in prop.get("anyOf", [])


def _never_null(o: dict[str, Any]) -> dict[str, Any]:
    """An optional property of a response object is omitted when empty, never null: only a required one
    (`_keep_none` of the contract, e.g. `degradation_reason`) may be null."""
    props = o.get("properties")
    if not isinstance(props, dict) or not isinstance(o.get("type"), str):
        return o
    required = set(o.get("required", []))
    for name, sub in props.items():
        if name in required or not isinstance(sub, dict):
            continue
        if isinstance(sub.get("type"), list):
            types = [t for t in sub["type"] if t != "null"]
            sub["type"] = types[0] if len(types) == 1 else types
        alts = sub.get("anyOf")
        if isinstance(alts, list) and len(alts) == 2 and alts[1] == {"type": "null"}:
            props[name] = {**{k: v for k, v in sub.items() if k != "anyOf"}, **alts[0]}
    return o


def _inline_single_use(schema: dict[str, Any]) -> dict[str, Any]:
    """Each `$defs` entry referenced once replaced by its body where it is used; one never referenced dropped."""
    defs = schema.pop("$defs", {})
    text = json.dumps(schema) + json.dumps(defs)
    uses = {n: text.count(f'"#/$defs/{n}"') for n in defs}

    def fix(o: dict[str, Any]) -> dict[str, Any]:
        name = str(o.get("$ref", "")).removeprefix("#/$defs/")
        return {**{k: v for k, v in o.items() if k != "$ref"}, **resolve(name)} if uses.get(name) == 1 else o

    def resolve(name: str) -> dict[str, Any]:
        return _walk(defs[name], fix)

    out = _walk(schema, fix)
    kept = {n: resolve(n) for n in defs if uses[n] > 1}
    return {**out, "$defs": kept} if kept else out
