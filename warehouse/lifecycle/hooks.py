"""Forget hooks: stores of other features that keep rows about indexed items register here.

`akw forget` calls every hook with the forgotten item ids (session, actor, skill, workspace ids and
document keys) after the tombstones are written and before the residue scan, so a store that is not
wired shows up as `KNOWLEDGE_DELETE_PARTIAL`. A hook returns how many rows it removed.
"""

from __future__ import annotations

from collections.abc import Callable

from warehouse.core.paths import Paths
from warehouse.home import access_counter, feedback, trust

ForgetHook = Callable[[Paths, set[str]], int]
# the stores this version keeps beside the index: feedback verdicts, access counters and trust scores
# name result ids (the rebuild after forget recomputes ak_trust too, without the forgotten entities)
FORGET_HOOKS: dict[str, ForgetHook] = {"access_counter": access_counter.forget_items,
                                       "feedback": feedback.forget_items, "trust": trust.forget_items}


def register_forget_hook(name: str, hook: ForgetHook) -> None:
    """Register (or replace) the hook of one store, e.g. `feedback` -> `feedback.forget_items`."""
    FORGET_HOOKS[name] = hook


def run_forget_hooks(paths: Paths, item_ids: set[str]) -> dict[str, int]:
    return {name: int(hook(paths, item_ids)) for name, hook in sorted(FORGET_HOOKS.items())}
