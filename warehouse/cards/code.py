"""The code card: one indexed chunk (a search `code` item id) with its text and its neighbours in the file."""

from __future__ import annotations

import duckdb

from warehouse.cards.contract import CodeCard, Evidence, Workspace
from warehouse.cards.lookup import Budget, not_found, one, rows


def code_card(con: duckdb.DuckDBPyConnection, index_rev: str, ident: str, budget: Budget) -> CodeCard:
    d = one(con, "SELECT * FROM ak_document WHERE doc_key = ? AND lane = 'code'", [ident])
    if d is None:
        raise not_found("code", ident, index_rev, "ids are code item ids (ak_document.doc_key of the code lane)")
    near = rows(con, """
        SELECT doc_key, start_line, end_line, symbol FROM ak_document
        WHERE lane = 'code' AND path = ? AND workspace_id IS NOT DISTINCT FROM ? AND doc_key <> ?
        ORDER BY abs(start_line - ?), start_line, doc_key LIMIT 4""",
                [d["path"], d["workspace_id"], ident, d["start_line"] or 0])
    card = CodeCard(index_rev=index_rev, id=ident, path=d["path"], start_line=d["start_line"], end_line=d["end_line"],
                    workspace=Workspace(workspace_id=d["workspace_id"], path=d["workspace_path"])
                    if (d["workspace_id"] or d["workspace_path"]) else None,
                    language=d["language"], symbol=d["symbol"], source_kind=d["source_kind"],
                    text=budget.text("text", d["text"]),
                    neighbours=[Evidence(kind="document", id=n["doc_key"],
                                         note=f"lines {n['start_line']}-{n['end_line']}"
                                              + (f" {n['symbol']}" if n["symbol"] else "")) for n in near])
    card.truncated = budget.cuts
    return card
