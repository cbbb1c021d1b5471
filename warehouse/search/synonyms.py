"""Query expansion with a small RU↔EN work vocabulary (spec FR-5.8: "optional synonyms").

People ask in Russian about work that was logged in English (and the other way round), and
paraphrase (`перенос` for a migration, `забился диск` for a full disk). Each query term is
expanded with the terms of its listed equivalents; a *group* (a term and its equivalents)
counts as matched when any of its terms matches, so expansion never lowers coverage.
Keys and values are plain words (or stems); both go through the index's own tokenizer macro,
so the table matches whatever stems the index uses. Deterministic, local, no model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from warehouse.search import lexical

# word or stem -> equivalent words in the other language, or a paraphrase
EQUIV: dict[str, str] = {
    # work and code
    "тест": "test tests testing", "тестирован": "testing test", "ветк": "branch", "влит": "merge",
    "смерж": "merge", "ревь": "review", "ревью": "review", "замечан": "feedback comments review",
    "отчет": "report", "отчёт": "report", "статус": "status", "проект": "project", "руководств": "leadership",
    "провер": "verify check", "проверк": "verification check", "готов": "done ready complete",
    "задач": "task", "фич": "feature", "иде": "ideas brainstorm", "требован": "requirements",
    "дизайн": "design", "отлад": "debug debugging", "отлаж": "debug", "ошибк": "error bug failure",
    "ошибок": "error bug failure", "баг": "bug", "навык": "skill", "код": "code", "функц": "function",
    "класс": "class", "файл": "file", "скрипт": "script", "написа": "write create", "пиш": "write",
    "реализац": "implementation implement", "реализова": "implement", "план": "plan",
    "выполн": "execute", "параллельн": "parallel", "агент": "agent", "подагент": "subagent",
    "веб": "web", "страниц": "page", "фронтенд": "frontend", "браузер": "browser", "интерфейс": "interface ui",
    "презентац": "presentation slides", "документ": "document docs", "документац": "documentation docs",
    "письм": "email letter", "рассылк": "newsletter", "анимац": "animation gif", "гифк": "gif",
    "тем": "theme", "цвет": "color colors", "шрифт": "font fonts", "искусств": "art", "генеративн": "generative",
    "бренд": "brand", "коммуникац": "communications", "внутрен": "internal", "сервер": "server",
    "mcp-сервер": "mcp server",
    # ops
    "бэкап": "backup", "резервн": "backup", "ротац": "rotation rotate", "дамп": "dump", "зон": "zone",
    "перенос": "migrate migration move", "перенест": "migrate move", "переезд": "migration move",
    "миграц": "migration migrate", "мигрир": "migrate migration", "мигрирова": "migrate migration",
    "сайт": "site", "заказ": "order orders", "бот": "bot", "диск": "disk", "мест": "space disk",
    "забил": "full", "заб": "full", "освобожда": "free cleanup", "освобод": "free cleanup",
    "баз": "database db", "бд": "database db", "доступ": "access", "парол": "password",
    "сертификат": "certificate cert tls", "продл": "renew renewal", "деплo": "deploy", "деплой": "deploy",
    "депло": "deploy", "развернут": "deploy", "выкат": "deploy rollout", "обнов": "update upgrade",
    "настро": "configure setup", "настройк": "configuration setup config", "таймер": "timer",
    "расписан": "schedule cron", "схем": "schema", "индекс": "index", "нестабильн": "flaky",
    "флак": "flaky", "безопасн": "security hardening", "защит": "hardening security", "прокс": "proxy",
    "домен": "domain", "запис": "record records", "почист": "clean cleanup free", "очист": "clean cleanup",
    "кодировк": "encoding", "пайплайн": "pipeline ci", "линтер": "lint linter", "сборк": "build",
    "образ": "image", "контейнер": "container", "лог": "logs log", "журнал": "journal log",
    "упал": "failed crash down", "падает": "fails failure crash", "перезапуст": "restart", "рут": "root",
    "залогин": "login log", "войт": "login", "магазин": "shop", "переда": "handoff",
    "вычища": "clean cleanup remove strip", "вычист": "clean cleanup strip", "удал": "remove delete",
    "виндов": "windows crlf", "перевод": "line crlf", "строк": "line lines", "репозитор": "repository repo",
    "восстанов": "restore recover", "восстанавлива": "restore recover", "копи": "copy backup",
    "снима": "take make", "восстановлен": "restore recovery", "сломал": "broken broke",
    "чин": "fix fixed", "почин": "fix fixed", "исправ": "fix fixed", "поднима": "start up",
    # what skills are for, in the words people ask with (issue 11: skill paraphrases)
    "колонк": "column", "столбц": "column", "таблиц": "table", "заполн": "fill backfill", "добав": "add",
    "больш": "large big", "прод": "production prod", "кончил": "full out", "конч": "full out",
    "съел": "fills ate", "риск": "risk safely safe", "непонятн": "unexpected unclear", "первопричин": "root cause",
    "наугад": "guess random", "лата": "patch", "шаблон": "template",
    "brute": "fail2ban", "remot": "ssh", "spread": "propagation ttl",
    # English -> Russian (content logged in Russian)
    "migrat": "миграция перенос", "certif": "сертификат", "backup": "бэкап резервная", "disk": "диск",
    "access": "доступ", "password": "пароль", "deploy": "деплой", "flaki": "нестабильный", "flaky": "нестабильный",
    "rotat": "ротация", "restor": "восстановление", "renew": "продление", "full": "заполнен",
    "space": "место", "secur": "безопасность", "harden": "усиление", "proxi": "прокси",
    "clean": "очистка почистить", "fix": "исправить починить", "repositori": "репозиторий",
    # English paraphrases of English work words
    "move": "migrate migration", "moved": "migrate migration", "websit": "site", "website": "site",
    "machin": "server host", "machine": "server host",
}


@dataclass(frozen=True)
class Expansion:
    terms: list[str]                   # every term: the query's own first, then equivalents
    found: list[tuple[str, int, int]]  # the known ones (term, term_id, df), for lexical_search
    groups: list[list[str]]            # per original term: [term, *equivalent terms]


_TERM_MAP: dict[str, list[str]] = {}


def _term_map(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """term (as the tokenizer makes it) -> the terms of its equivalent words; built once per process
    with one tokenizer statement for the whole table."""
    if not _TERM_MAP:
        keys = list(EQUIV)
        tokens = lexical.tokenize_many(con, keys + [EQUIV[k] for k in keys])
        for n, key in enumerate(keys):
            for term in tokens[n] or [key]:
                _TERM_MAP.setdefault(term.lstrip("="), tokens[len(keys) + n])
    return _TERM_MAP


def expand(con: duckdb.DuckDBPyConnection, query: str, terms: list[str] | None = None,
           lookup: Callable[[list[str]], list[tuple[str, int, int]]] | None = None) -> Expansion:
    """Tokenize the query like the index does (or take its `terms`), add the terms of listed
    equivalents, and look them all up in the vocabulary at once (`lookup`: a memoizing
    replacement for `lexical.lookup` on `con`)."""
    terms = lexical.tokenize(con, query) if terms is None else terms
    table = _term_map(con)
    groups = [[t] for t in terms]
    all_terms = list(terms)
    for group in groups:
        for term in table.get(group[0].lstrip("="), ()):
            if term not in group:
                group.append(term)
            if term not in all_terms:
                all_terms.append(term)
    found = lookup(all_terms) if lookup is not None else lexical.lookup(con, all_terms)
    return Expansion(all_terms, found, groups)
