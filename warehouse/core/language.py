"""Which language a person's output speaks: one language per output (issue 28, setting `ui.language`).

`ru`/`en` in the settings win. `auto` follows the text the person typed (a query, a task) when it has
letters — any Cyrillic letter means Russian, other letters English — and otherwise the locale
(LC_ALL, then LC_MESSAGES, then LANG, as POSIX orders them). Search decides once per request, so every
text of one answer (routing reason, why-texts, warnings) is in the same language; the CLI labels follow
the same decision, and so do the texts cards and dispatch plans generate (cards/texts.py: a card decides on
its task, a plan on its task). Data (titles, snippets, paths, ids) is never translated.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Literal

Lang = Literal["ru", "en"]
Setting = Literal["auto", "ru", "en"]

LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LETTER = re.compile(r"[^\W\d_]")


def of_text(text: str | None) -> Lang | None:
    """The language of typed text: `ru` with any Cyrillic letter, `en` with other letters, None without letters."""
    if not text:
        return None
    if _CYRILLIC.search(text):
        return "ru"
    return "en" if _LETTER.search(text) else None


def of_locale(env: Mapping[str, str] | None = None) -> Lang:
    """The locale's language: the first set of LC_ALL / LC_MESSAGES / LANG starting with `ru`, else English."""
    env = os.environ if env is None else env
    value = next((env[k] for k in LOCALE_VARS if env.get(k)), "")
    return "ru" if value.lower().startswith("ru") else "en"


def output_language(setting: str = "auto", text: str | None = None, env: Mapping[str, str] | None = None) -> Lang:
    """The one language of an output: the setting when fixed, else the typed text's, else the locale's."""
    if setting in ("ru", "en"):
        return setting  # type: ignore[return-value]
    return of_text(text) or of_locale(env)


Catalogue = Mapping[str, Mapping[Lang, str]]  # key -> {"en": template, "ru": template}


def text(catalogue: Catalogue, key: str, lang: Lang, **values: object) -> str:
    """Template `key` of a catalogue in `lang` (English where it has no translation), filled with `values`
    (`str.format`): the one lookup of the search messages, the CLI labels and the card and plan texts."""
    templates = catalogue[key]
    return templates.get(lang, templates["en"]).format(**values)


def word(catalogue: Catalogue, key: str, lang: Lang, default: str) -> str:
    """A stored value's word in `lang` under `key`; `default` (the value as stored) when it has none."""
    templates = catalogue.get(key)
    return templates.get(lang, default) if templates else default


# Stored values (states, lanes, outcomes, run outcomes, actor kinds) in words: one table for every surface
# that prints them (the CLI's text form, the apps), never applied to `--json` or to data
VALUES: dict[str, dict[Lang, str]] = {
    "ready": {"ru": "готов"}, "stale": {"ru": "устарел"}, "degraded": {"ru": "с деградацией"},
    "not_ready": {"ru": "не готов"}, "error": {"ru": "ошибка"}, "disabled": {"ru": "выключен"},
    "episodes": {"ru": "эпизоды"}, "code": {"ru": "код"}, "skills": {"ru": "навыки"}, "all": {"ru": "все"},
    "strong": {"ru": "сильное"}, "weak": {"ru": "слабое"},
    "success": {"ru": "успех"}, "partial": {"ru": "частичный успех"}, "failure": {"ru": "неудача"},
    "cancelled": {"ru": "отменён"}, "running": {"ru": "идёт"}, "unknown": {"ru": "неизвестно"},
    "published": {"ru": "опубликовано"}, "noop": {"ru": "без изменений"}, "failed": {"ru": "сбой"},
    "incremental": {"ru": "инкрементально"}, "full": {"ru": "полностью"},
    "none": {"ru": "нет"}, "ok": {"ru": "ок"}, "absent": {"ru": "нет"}, "unavailable": {"ru": "недоступен"},
    "off": {"ru": "выключен"},
    "True": {"ru": "да"}, "False": {"ru": "нет"},
    "agent": {"ru": "агент"}, "skill": {"ru": "навык"}, "episode": {"ru": "эпизод"},
    "root_session": {"ru": "основная сессия"}, "subagent": {"ru": "субагент"},
    "team_member": {"ru": "участник команды"}, "autoclaw_agent": {"ru": "агент AutoClaw"},
    "spawn_replica": {"ru": "запуск копии"},
    "team_task": {"ru": "задача команде"}, "external_handoff": {"ru": "внешняя передача"},
}


def value(v: object, lang: Lang) -> str:
    """A stored value (a state, a lane, an outcome) in words of `lang`; anything else as it is."""
    return word(VALUES, str(v), lang, str(v))
