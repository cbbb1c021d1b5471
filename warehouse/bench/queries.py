"""The bench's fixed query list: golden-set texts, then task titles and identifiers (RU + EN).

Same repository → same list in the same order, so latency runs are comparable across commits.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.evaluation.golden import load_golden
from warehouse.evaluation.homes import REPO

MIN_QUERIES = 200
GOLDEN = REPO / "golden" / "queries.yaml"
_PREFIX = {"ru": ("кто делал", "что известно про", "где код для"), "en": ("who did", "what do we know about",
                                                                        "where is the code for")}


def bench_queries(golden: Path = GOLDEN) -> list[str]:
    """>= 200 distinct queries: golden texts, template titles, identifiers, and phrased titles."""
    from akw_fixtures.catalogue import templates

    out: list[str] = [q.text for q in load_golden(golden).queries] if golden.exists() else []
    tpls = list(templates().values())
    for t in tpls:
        out += [t.title["ru"], t.title["en"], *t.identifiers]
    for i, t in enumerate(tpls):
        for lang in ("ru", "en"):
            out.append(f"{_PREFIX[lang][i % 3]} {t.title[lang].lower()}")
            out.append(f"{t.identifiers[0]} {t.probe.keyword}")
    seen: set[str] = set()
    uniq = [q for q in out if not (q in seen or seen.add(q))]
    if len(uniq) < MIN_QUERIES:
        raise ValueError(f"only {len(uniq)} bench queries; the bench promises {MIN_QUERIES}+")
    return uniq
