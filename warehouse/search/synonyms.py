"""Query expansion with a small RU↔EN work vocabulary (spec FR-5.8: "optional synonyms").

People ask in Russian about work that was logged in English (and the other way round), and
paraphrase (`перенос` for a migration, `забился диск` for a full disk). Each query term is
expanded with the terms of its listed equivalents; a *group* (a term and its equivalents)
counts as matched when any of its terms matches, so expansion never lowers coverage.
Keys and values are plain words (or stems); both go through the index's own tokenizer macro,
so the table matches whatever stems the index uses. Deterministic, local, no model. A Russian word
that neither the index nor this table knows gets the English terms of the shipped lexicon
(search/translation.py), so a Russian question can find English work lexically.

Generic work words (`GENERIC`: fix, error, code, retry, кто-то чинил, ошибка …) say that work
was done, not what it was about: "Retrying with a fix." matches "кто чинил mysql" as well as any
failed session does. They are taken out of the query's evidence: not searched, not expanded,
not counted in coverage (ADR 0003 "Precision"); they still route the query (routing.py reads the
raw words). A query of generic words only has no evidence at all, so its answer is empty. The
list holds word forms, tokenized like everything else, so a stem collision (coding → code)
lands on the same generic term.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

from warehouse.core.tokenizer import CYRILLIC
from warehouse.search import lexical, translation

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
    "копирован": "backup copy",
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
    "websit": "site сайт", "website": "site сайт", "host": "хостинг",
    "compani": "компания", "company": "компания", "ship": "deploy деплой выкатить", "shipped": "deploy деплой выкатить",
    "notif": "уведомление уведомления", "notification": "уведомление уведомления", "servic": "сервис",
    "service": "сервис", "product": "прод продакшн", "production": "прод продакшн", "investig": "разбор расследование",
    "investigate": "разбор расследование", "timeout": "таймаут", "test": "тест тесты", "domain": "домен",
    "record": "запись записи", "audit": "аудит", "lock": "закрыть блокировка", "databas": "база",
    "database": "база", "login": "вход логин", "build": "сборка", "schema": "схема", "tabl": "таблица",
    "table": "таблица", "column": "колонка поле", "field": "поле колонка", "timer": "таймер", "nightli": "ночной",
    "nightly": "ночной", "revers": "обратный", "reverse": "обратный", "byte": "байт байтов", "mark": "метка",
    "invis": "невидимый", "invisible": "невидимый",
    # Russian words of the same work vocabulary
    "обратн": "reverse", "ночн": "nightly night daily", "настраива": "configure setup", "прогон": "run",
    "пол": "field column", "добавля": "add", "свободн": "free", "продлева": "renew renewal", "убира": "remove strip",
    "невидим": "invisible", "метк": "mark", "байт": "byte bytes bom", "порядк": "order", "конц": "ending endings",
    "таймаут": "timeout", "уведомлен": "notification notify", "сервис": "service", "аудит": "audit",
    "вход": "login", "компан": "company", "хостинг": "hosting host", "продакшн": "production prod",
    # English paraphrases of English work words
    "move": "migrate migration перенос перенести переезд", "moved": "migrate migration перенос перенести переезд",
    "machin": "server host", "machine": "server host",
}


# Words that describe doing work, not its topic (RU/EN word forms; the tokenizer makes the stems).
GENERIC = (
    "fix fixed fixing repair repaired error errors code coding coded codes retry retried retrying issue issues "
    "problem problems bug bugs broken broke thing things stuff work worked working task tasks job jobs help make "
    "made done get got try tried change changed changes use used using handle handled deal dealt solve solved "
    "look need want way please old new previous previously earlier recently fail failed failing failure failures "
    "agent agents subagent subagents session sessions "
    "чинил чинила чинили чинить починил починила починили починить исправил исправила исправили исправить исправлял "
    "ошибка ошибки ошибок ошибку ошибкой код кода коде коды кодом проблема проблемы проблему проблем баг баги бага "
    "задача задачу задачи работа работу работал работает делал делала делали сделал сделала сделали сделать решал "
    "решала решали решил решила решили решить разбирался разбиралась разбирались занимался занималась помог помоги "
    "попробовать нужно раньше ранее недавно снова опять агент агента агенты агентом субагент сессия сессии сессию "
    "сломал сломалось сломался упал упало упала падает ставил ставила ставили поставил поставила поставили "
    "настраивал настраивала настраивали настроил настроила настроили настроить настраивать "
    # the frame of a question and function words the stopword list lacks: "what do we know about"
    "know known знаем знаю знает известно про перед после через again s "
    "новый новая новое новые нового новую новых новой"
)


@dataclass(frozen=True)
class Expansion:
    terms: list[str]                   # every term: the query's own first, then equivalents
    found: list[tuple[str, int, int]]  # the known ones (term, term_id, df), for lexical_search
    groups: list[list[str]]            # per original term: [term, *equivalent terms]
    generic: list[str] = field(default_factory=list)  # the query's generic terms, left out of all the above


_TERM_MAP: dict[str, list[str]] = {}
_GENERIC: set[str] = set()


def _term_map(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """term (as the tokenizer makes it) -> the terms of its equivalent words; built once per process
    with one tokenizer statement for the whole table."""
    if not _TERM_MAP:
        keys = list(EQUIV)
        tokens = lexical.tokenize_many(con, keys + [EQUIV[k] for k in keys] + [GENERIC])
        _GENERIC.update(tokens[-1])
        for n, key in enumerate(keys):
            # a key is a stem as written ("готов") and also whatever the tokenizer makes of it
            # ("гот"): a query word stemmed to either finds the entry
            for term in [*tokens[n], key]:
                _TERM_MAP.setdefault(term.lstrip("="), tokens[len(keys) + n])
    return _TERM_MAP


def _generic_in(terms: list[str]) -> list[str]:
    """The query's generic terms, except those that are part of one of its identifiers: in
    "код-ревью" or "requesting-code-review" the word names the topic."""
    parts = [p for t in terms if t.startswith("=") for p in re.split(r"[._:/-]+", t[1:]) if p]
    return [t for t in terms if t in _GENERIC and not any(p.startswith(t) for p in parts)]


def expand(con: duckdb.DuckDBPyConnection, query: str, terms: list[str] | None = None,
           lookup: Callable[[list[str]], list[tuple[str, int, int]]] | None = None,
           loanwords: Callable[[list[str]], dict[str, list[str]]] | None = None) -> Expansion:
    """Tokenize the query like the index does (or take its `terms`), add the terms of listed
    equivalents, and look them all up in the vocabulary at once (`lookup`: a memoizing
    replacement for `lexical.lookup` on `con`; `loanwords`: for `translation.loanword_terms`)."""
    terms = lexical.tokenize(con, query) if terms is None else terms
    table = _term_map(con)
    generic = _generic_in(terms)
    terms = [t for t in terms if t not in generic]
    groups = [[t] for t in terms]
    all_terms = list(terms)
    for group in groups:
        for term in table.get(group[0].lstrip("="), ()):
            if term in _GENERIC and group[0] not in _GENERIC:
                continue  # a specific word does not widen into a generic one (перенос → move, not "code")
            if term not in group:
                group.append(term)
            if term not in all_terms:
                all_terms.append(term)
    found = lookup(all_terms) if lookup is not None else lexical.lookup(con, all_terms)
    spell = loanwords if loanwords is not None else (lambda stems: translation.loanword_terms(con, stems))
    added = _translate_unknown(spell, groups, {t for t, _, _ in found}, all_terms)
    if added:
        found = [*found, *(lookup(added) if lookup is not None else lexical.lookup(con, added))]
    return Expansion(all_terms, found, groups, generic)


_LATIN = re.compile("[a-z]")


def _translate_unknown(loanwords: Callable[[list[str]], dict[str, list[str]]], groups: list[list[str]],
                       known: set[str], all_terms: list[str]) -> list[str]:
    """Give each Cyrillic group that has no known term the English terms of translation.lexicon(), or else the
    index terms it spells as a loanword (translation.loanword_terms), in place; returns the terms it added.
    Nothing when the query names a Latin-script thing the index does not know: "кто добавлял поддержку Windsurf
    …" is about Windsurf, and its translated frame ("add", "support") would answer it with work about something
    else."""
    if any(_LATIN.search(g[0]) and not CYRILLIC.search(g[0]) and not any(t in known for t in g) for g in groups):
        return []
    unknown = [g for g in groups
               if not g[0].startswith("=") and CYRILLIC.search(g[0]) and not any(t in known for t in g)]
    table = translation.lexicon()
    loans = loanwords([g[0] for g in unknown if g[0] not in table]) if unknown else {}
    added: list[str] = []
    for group in unknown:
        for term in table.get(group[0]) or loans.get(group[0], ()):
            if term not in group:
                group.append(term)
            if term not in all_terms:
                all_terms.append(term)
                added.append(term)
    return added
