"""Query expansion with a small RU↔EN work vocabulary (spec FR-5.8: "optional synonyms").

People ask in Russian about work that was logged in English (and the other way round), and
paraphrase (`перенос` for a migration, `забился диск` for a full disk). Each query term is
expanded with the terms of its listed equivalents; a *group* (a term and its equivalents)
counts as matched when any of its terms matches, so expansion never lowers coverage.
Keys and values are plain words (or stems); both go through the index's own tokenizer macro,
so the table matches whatever stems the index uses. Deterministic, local, no model.
"""

from __future__ import annotations

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
    "домен": "domain", "запис": "record records", "почист": "clean cleanup", "очист": "clean cleanup",
    "кодировк": "encoding", "пайплайн": "pipeline ci", "линтер": "lint linter", "сборк": "build",
    "образ": "image", "контейнер": "container", "лог": "logs log", "журнал": "journal log",
    "упал": "failed crash down", "падает": "fails crash", "перезапуст": "restart", "рут": "root",
    "залогин": "login log", "войт": "login", "магазин": "shop", "переда": "handoff",
    "вычища": "clean cleanup remove strip", "вычист": "clean cleanup strip", "удал": "remove delete",
    "виндов": "windows crlf", "перевод": "line crlf", "строк": "line lines", "репозитор": "repository repo",
    "восстанов": "restore recover", "восстанавлива": "restore recover", "копи": "copy backup",
    "снима": "take make", "восстановлен": "restore recovery", "сломал": "broken broke",
    "чин": "fix fixed", "почин": "fix fixed", "исправ": "fix fixed", "поднима": "start up",
    # English -> Russian (content logged in Russian)
    "migrat": "миграция перенос", "certif": "сертификат", "backup": "бэкап резервная", "disk": "диск",
    "access": "доступ", "password": "пароль", "deploy": "деплой", "flaki": "нестабильный", "flaky": "нестабильный",
    "rotat": "ротация", "restor": "восстановление", "renew": "продление", "full": "заполнен",
    "space": "место", "secur": "безопасность", "harden": "усиление", "proxi": "прокси",
    "clean": "очистка почистить", "fix": "исправить починить", "repositori": "репозиторий",
}


@dataclass(frozen=True)
class Expansion:
    terms: list[str]                   # every term: the query's own first, then equivalents
    found: list[tuple[str, int, int]]  # the known ones (term, term_id, df), for lexical_search
    groups: list[list[str]]            # per original term: [term, *equivalent terms]


_TERM_MAP: dict[str, str] = {}


def _term_map(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """term (as the tokenizer makes it) -> equivalent words; built once per process."""
    if not _TERM_MAP:
        for key, words in EQUIV.items():
            for term in lexical.analyze(con, key)[0] or [key]:
                _TERM_MAP.setdefault(term.lstrip("="), words)
    return _TERM_MAP


def expand(con: duckdb.DuckDBPyConnection, query: str) -> Expansion:
    """Tokenize the query like the index does, then add the terms of listed equivalents."""
    terms, found = lexical.analyze(con, query)
    table = _term_map(con)
    extra_words = {t: table[t.lstrip("=")] for t in terms if t.lstrip("=") in table}
    groups = [[t] for t in terms]
    if not extra_words:
        return Expansion(terms, found, groups)
    all_terms = list(terms)
    known = {t for t, _, _ in found}
    found = list(found)
    for i, t in enumerate(terms):
        if t not in extra_words:
            continue
        eq_terms, eq_found = lexical.analyze(con, extra_words[t])
        for term in eq_terms:
            if term not in groups[i]:
                groups[i].append(term)
            if term not in all_terms:
                all_terms.append(term)
        for row in eq_found:
            if row[0] not in known:
                known.add(row[0])
                found.append(row)
    return Expansion(all_terms, sorted(found, key=lambda r: r[1]), groups)
