"""Micro-benchmark of the lexical index against SQLite FTS5 on a seeded synthetic RU/EN corpus.

    python -m warehouse.bench.lexical --docs 100000 [--queries 200] [--seed 7] [--out reports]

Phases run in separate processes so each peak RSS is its own: `gen` writes ak_document into a
DuckDB file, `build` indexes it, `query` times warm queries, `sqlite` does the same in SQLite
FTS5 (bm25(), unicode61 remove_diacritics 2), `duckfts` (--duckdb-fts) in the fts extension's
match_bm25. Prints one JSON document and writes reports/lexical-bench-<docs>.json.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow as pa

from warehouse.core.db import connect
from warehouse.indexing.lexical_index import build_lexical_index
from warehouse.search.lexical import lexical_search, search_with_strategy


def _w(text: str) -> list[str]:
    return text.split()


LANES = (("episodes", 50), ("code", 25), ("memories", 20), ("skills", 5))

RU = _w(
    "миграция миграцию миграции мигрировали мигрировать сайт сайта сайте сайты сервер сервера серверу "
    "сервере база базы базу данных данные запрос запроса запросы ошибка ошибки ошибку исправить исправили "
    "исправление настройка настройки настроить развернуть развернули развертывание деплой деплоя сертификат "
    "сертификата обновить обновили обновление проверка проверить проверили тест тесты тестов пользователь "
    "пользователя пользователей доступ доступа ключ ключа файл файла файлы конфигурация конфигурации "
    "задача задачи задачу агент агента агенты навык навыка навыки память памяти сессия сессии журнал "
    "журнала логи логов порт порта домен домена прокси кэш кэша очередь очереди индекс индекса поиск "
    "поиска результат результаты отчет отчета сборка сборки контейнер контейнера образ образа ветка "
    "ветки коммит коммита откат отката резервная копия копии скрипт скрипта таймаут таймаута перезапуск "
    "перезапустили нагрузка нагрузки медленно быстро успешно упало упал работает работал был была было были"
)
EN = _w(
    "deploy deploying deployed deployment migrate migrating migration site server servers database query "
    "queries error errors fix fixed fixing config configuration configure certificate renew renewed update "
    "updated check checked test tests testing user users access key file files task tasks agent agents "
    "skill skills memory session sessions log logs port domain proxy cache queue index indexing search "
    "result results report build builds container image branch commit rollback backup script timeout "
    "restart restarted load slow fast success failed failing works worked after before via were nginx "
    "postgres redis docker kubernetes python node api endpoint request "
    "response token schema table column row worker job cron schedule retry retries parser handler"
)
# Function words take the top Zipf ranks, as in real text (most are in the index's stopword list).
FUNC = _w("и в на the a of to с по не and in is for что как это on with к для was")
TLDS = ("ru", "com", "io", "net", "dev")
DIRS = ("etc", "var", "srv", "opt", "home", "app", "src", "lib", "config", "sites-enabled", "nginx", "www", "logs")
TYPO = ("«", "»", "—", "–", "…", "\u00a0", "“", "”")


def _syllable_words(rng: random.Random, n: int, alphabet: str) -> list[str]:
    """Rare pseudo-words (the long tail a real corpus has)."""
    cons, vows = alphabet.split("|")
    return ["".join(rng.choice(cons) + rng.choice(vows) for _ in range(rng.randint(2, 4))) for _ in range(n)]


class Corpus:
    """Seeded word and identifier pools; documents and queries are drawn from them."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.rng = rng
        rare = _syllable_words(rng, 40_000, "бвгдзклмнпрстфхцчшщ|аеиоуыэюяё") + _syllable_words(
            rng, 40_000, "bcdfghklmnprstvwz|aeiouy"
        )
        content = RU + EN + rare
        rng.shuffle(content)  # common content words are a RU/EN/rare mix, as in agent logs
        self.words = FUNC + content
        self.word_cum = _zipf_cum(len(self.words))
        self.idents = (
            [".".join(str(rng.randint(1, 254)) for _ in range(4)) for _ in range(20_000)]
            + [f"{rng.choice(EN)}.{rng.choice(rare)}-{rng.choice(EN)}.{rng.choice(TLDS)}" for _ in range(5_000)]
            + ["/" + "/".join(rng.choice(DIRS) for _ in range(rng.randint(1, 3))) + f"/{rng.choice(rare)}.conf"
               for _ in range(20_000)]
            + [f"{rng.choice(EN)}-{rng.choice(rare)}-{rng.choice(TLDS)}" for _ in range(2_000)]
            + [f"{rng.choice(EN)}_{rng.choice(EN)}_{rng.choice(rare)}" for _ in range(10_000)]
            + [f"{rng.choice(EN)}{rng.choice(EN).capitalize()}{rng.choice(rare).capitalize()}" for _ in range(10_000)]
        )
        self.ident_cum = _zipf_cum(len(self.idents))
        self.lanes = [lane for lane, _ in LANES]
        self.lane_w = [w for _, w in LANES]

    def doc(self) -> tuple[str, str, str, str | None]:
        rng = self.rng
        lane = rng.choices(self.lanes, self.lane_w)[0]
        words = rng.choices(self.words, cum_weights=self.word_cum, k=rng.randint(20, 120))
        n_id = rng.randint(0, 6)
        for ident in rng.choices(self.idents, cum_weights=self.ident_cum, k=n_id):
            words.insert(rng.randrange(len(words) + 1), ident)
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), rng.choice(TYPO))
        title = " ".join(rng.choices(self.words, cum_weights=self.word_cum, k=rng.randint(3, 8)))
        ident_text = rng.choice(self.idents) if rng.random() < 0.3 else None
        return lane, title, " ".join(words), ident_text

    def query(self, text: str) -> str:
        """2-4 words of a document (identifiers included, function words not): a realistic lookup."""
        toks = sorted({t for t in text.split() if t not in TYPO and t not in FUNC})
        q = self.rng.sample(toks, min(len(toks), self.rng.randint(2, 4)))
        return " ".join(q)


def _zipf_cum(n: int, s: float = 1.0) -> list[float]:
    cum, acc = [], 0.0
    for r in range(n):
        acc += 1.0 / (r + 1) ** s
        cum.append(acc)
    return cum


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def phase_gen(db: Path, docs: int, queries: int, seed: int) -> dict:
    """Write ak_document (doc_id dense in (lane, doc_key) order) and the query set."""
    corpus = Corpus(seed)
    con = connect(db)
    con.execute("CREATE TABLE raw_doc (doc_key VARCHAR, lane VARCHAR, title VARCHAR, text VARCHAR, ident_text VARCHAR)")
    step = 50_000
    sample: list[tuple[str, str]] = []
    qevery = max(1, docs // max(1, queries))
    for start in range(0, docs, step):
        rows = []
        for i in range(start, min(docs, start + step)):
            lane, title, text, ident = corpus.doc()
            rows.append((f"d{i:08d}", lane, title, text, ident))
            if i % qevery == 0 and len(sample) < queries:
                sample.append((lane, corpus.query(text)))
        _bulk(con, rows)
    con.execute(
        "CREATE TABLE ak_document AS SELECT (row_number() OVER (ORDER BY lane, doc_key) - 1)::INTEGER AS doc_id, "
        "doc_key, lane, title, text, ident_text FROM raw_doc ORDER BY doc_id"
    )
    con.execute("DROP TABLE raw_doc")
    con.execute("CHECKPOINT")
    con.close()
    return {"queries": sample}


def _bulk(con: duckdb.DuckDBPyConnection, rows: list[tuple]) -> None:
    cols = list(zip(*rows, strict=True))
    tbl = pa.table({n: pa.array(c, pa.string()) for n, c in zip(
        ("doc_key", "lane", "title", "text", "ident_text"), cols, strict=True)})
    con.register("batch", tbl)
    con.execute("INSERT INTO raw_doc SELECT * FROM batch")
    con.unregister("batch")


def _used_mb(con: duckdb.DuckDBPyConnection) -> float:
    blocks, size = con.execute("SELECT used_blocks, block_size FROM pragma_database_size()").fetchone()
    return blocks * size / 2**20


def phase_build(db: Path, chunk_docs: int) -> dict:
    con = connect(db, memory_limit="1GB", threads=2)
    before = _used_mb(con)
    stats = build_lexical_index(con, chunk_docs=chunk_docs)
    con.execute("CHECKPOINT")
    stats["index_mb"] = round(_used_mb(con) - before, 1)
    stats["docs_mb"] = round(before, 1)
    sizes = dict(con.execute(
        "SELECT table_name, estimated_size FROM duckdb_tables() WHERE table_name LIKE 'fts_%'").fetchall())
    con.close()
    stats["peak_rss_mb"] = _peak_rss_mb()
    stats["table_rows"] = sizes
    return stats


def _percentiles(ms: list[float]) -> dict:
    ms = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
        "max_ms": round(ms[-1], 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def phase_query(db: Path, queries: list[tuple[str, str]], k: int) -> dict:
    con = connect(db, read_only=True)
    for lane, q in queries[:20]:  # warm the buffer cache
        lexical_search(con, lane, q, k)
    ms, hits, strategies = [], 0, {}
    for lane, q in queries:
        t = time.perf_counter()
        res, how = search_with_strategy(con, lane, q, k)
        ms.append((time.perf_counter() - t) * 1000)
        hits += bool(res)
        strategies[how] = strategies.get(how, 0) + 1
    out = _percentiles(ms)
    out["with_hits"] = hits
    out["strategies"] = dict(sorted(strategies.items()))
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def phase_sqlite(db: Path, sq: Path, queries: list[tuple[str, str]], k: int) -> dict:
    """The same documents and queries in SQLite FTS5 with bm25(): OR of quoted query words."""
    t0 = time.perf_counter()
    lite = sqlite3.connect(sq)
    lite.execute("CREATE VIRTUAL TABLE d USING fts5(lane UNINDEXED, title, text, ident_text, "
                 "tokenize='unicode61 remove_diacritics 2')")
    con = connect(db, read_only=True)
    cur = con.execute("SELECT doc_id, lane, title, text, ident_text FROM ak_document ORDER BY doc_id")
    while batch := cur.fetchmany(50_000):
        lite.executemany("INSERT INTO d(rowid, lane, title, text, ident_text) VALUES (?, ?, ?, ?, ?)", batch)
    lite.commit()
    con.close()
    build_s = time.perf_counter() - t0
    sql = "SELECT rowid, bm25(d) AS s FROM d WHERE d MATCH ? AND lane = ? ORDER BY s, rowid LIMIT ?"
    fts_q = [(lane, " OR ".join('"' + w.replace('"', '""') + '"' for w in q.split())) for lane, q in queries]
    for lane, q in fts_q[:20]:
        lite.execute(sql, (q, lane, k)).fetchall()
    ms = []
    for lane, q in fts_q:
        t = time.perf_counter()
        lite.execute(sql, (q, lane, k)).fetchall()
        ms.append((time.perf_counter() - t) * 1000)
    lite.close()
    out = _percentiles(ms)
    out["build_seconds"] = round(build_s, 2)
    out["db_mb"] = round(sq.stat().st_size / 2**20, 1)
    return out


def phase_duckfts(db: Path, queries: list[tuple[str, str]], k: int) -> dict:
    """The fts extension's own index and match_bm25 on the same data (digits kept, russian stemmer)."""
    con = connect(db, memory_limit="1GB", threads=2)
    t0 = time.perf_counter()
    con.execute("PRAGMA create_fts_index('ak_document', 'doc_id', 'title', 'text', 'ident_text', "
                "stemmer='russian', stopwords='none', ignore='(\\.|[^a-zа-яё0-9])+', overwrite=1)")
    build_s = time.perf_counter() - t0
    sql = ("SELECT doc_id, score FROM (SELECT doc_id, fts_main_ak_document.match_bm25(doc_id, ?) AS score "
           "FROM ak_document WHERE lane = ?) WHERE score IS NOT NULL ORDER BY score DESC, doc_id LIMIT ?")
    for lane, q in queries[:5]:
        con.execute(sql, [q, lane, k]).fetchall()
    ms = []
    for lane, q in queries:
        t = time.perf_counter()
        con.execute(sql, [q, lane, k]).fetchall()
        ms.append((time.perf_counter() - t) * 1000)
    out = _percentiles(ms)
    out["build_seconds"] = round(build_s, 2)
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _child(args: list[str]) -> dict:
    cmd = [sys.executable, "-m", "warehouse.bench.lexical", *args]
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--chunk-docs", type=int, default=200_000)
    ap.add_argument("--out", default="reports")
    ap.add_argument("--workdir", default=None, help="keep the databases here (default: a temp dir, removed)")
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--duckdb-fts", action="store_true", help="also time the fts extension's match_bm25 (slow, RAM)")
    ap.add_argument("--phase", choices=("gen", "build", "query", "sqlite", "duckfts"), help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--qfile", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.phase:
        db = Path(a.db)
        queries = [tuple(q) for q in json.loads(Path(a.qfile).read_text())] if a.qfile else []
        result = {
            "gen": lambda: phase_gen(db, a.docs, a.queries, a.seed),
            "build": lambda: phase_build(db, a.chunk_docs),
            "query": lambda: phase_query(db, queries, a.k),
            "sqlite": lambda: phase_sqlite(db, db.with_suffix(".sqlite"), queries, a.k),
            "duckfts": lambda: phase_duckfts(db, queries, a.k),
        }[a.phase]()
        print(json.dumps(result, ensure_ascii=False))
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(a.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        db, qfile = work / f"bench-{a.docs}.duckdb", work / f"queries-{a.docs}.json"
        for stale in (db, db.with_suffix(".sqlite"), db.with_suffix(".duckdb.wal")):
            stale.unlink(missing_ok=True)
        common = ["--docs", str(a.docs), "--queries", str(a.queries), "--seed", str(a.seed), "--db", str(db)]
        t = time.perf_counter()
        gen = _child([*common, "--phase", "gen"])
        gen_s = time.perf_counter() - t
        qfile.write_text(json.dumps(gen["queries"], ensure_ascii=False))
        build = _child([*common, "--phase", "build", "--chunk-docs", str(a.chunk_docs)])
        build["db_file_mb"] = round(db.stat().st_size / 2**20, 1)
        qargs = [*common, "--qfile", str(qfile), "--k", str(a.k)]
        query = _child([*qargs, "--phase", "query"])
        report = {"docs": a.docs, "queries": len(gen["queries"]), "seed": a.seed, "k": a.k,
                  "gen_seconds": round(gen_s, 1), "build": build, "query": query}
        if not a.no_sqlite:
            lite = _child([*qargs, "--phase", "sqlite"])
            report["sqlite_fts5"] = lite
            report["ratio_p50_sqlite_over_duckdb"] = round(lite["p50_ms"] / max(query["p50_ms"], 1e-6), 2)
            report["ratio_p95_sqlite_over_duckdb"] = round(lite["p95_ms"] / max(query["p95_ms"], 1e-6), 2)
        if a.duckdb_fts:
            report["duckdb_fts_match_bm25"] = _child([*qargs, "--phase", "duckfts"])
    out = Path(a.out) / f"lexical-bench-{a.docs}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
