"""The `actors` of an answer (FR-5.3, UJ-1): who did this kind of work, with evidence, why and dispatch.

Fusion's actor statement scores every actor of the fused episodes; an actor is named only
with evidence the response itself returns (KC-7: no claim the caller cannot check), at most
three episodes of it, and at most `MAX_ACTORS` actors. The why-texts speak the answer's
language (decided once per search); whether the caller may dispatch to an actor is the settings' decision.
"""

from __future__ import annotations

from warehouse.core.settings import Dispatch
from warehouse.search.contract import Actor, ActorDispatch, ActorEvidence, ActorSkill, EpisodeItem, SearchRequest
from warehouse.search.items import cut, iso
from warehouse.search.messages import Lang, msg

MAX_ACTORS = 5  # UJ-1 asks for the top three; a few more give the caller a choice
SCORE_MAX = 1.9  # max of the FR-5.3 actor formula: 1 + 0.3 + 0.2 + 0.2 + 0.1 + 0.1


def actor_answers(req: SearchRequest, rows: list[tuple], episode_items: list[EpisodeItem], profiled: set[str],
                  dispatch: Dispatch, lang: Lang = "en") -> list[Actor]:
    """Actors in score order whose evidence is among `episode_items` (each item names its actor);
    `profiled`: actors whose profile matched and nominated a returned episode (fusion.nominate)."""
    evidence: dict[str, list[str]] = {}
    for it in episode_items:  # evidence may only name items the response returns (KC-7)
        if it.actor is not None:
            evidence.setdefault(it.actor.id, []).append(it.id)
    order = {it.id: i for i, it in enumerate(episode_items)}
    picked = [r for r in rows if r[0] in evidence][: min(req.limit, MAX_ACTORS)]
    if not picked:
        return []
    skills = {r[0]: [ActorSkill(name=s["name"], uses=int(s["uses"])) for s in r[-1]] for r in picked}
    out = []
    for (actor_id, kind, source, name, dispatch_mode, _rate, _total, n_eps, _max_rel, _top3, success, recency,
         same_ws, overlap, last_time, score, context, description, _skills) in picked:
        ev = sorted(evidence[actor_id], key=lambda k: order[k])[:3]
        out.append(Actor(
            actor_id=actor_id, name=name, context=context, description=cut(description, 160), kind=kind,
            source=source,
            confidence=round(min(1.0, float(score) / SCORE_MAX), 4), score=round(float(score), 6),
            why=_why(lang, int(n_eps), float(success), skills.get(actor_id, []), bool(same_ws), float(overlap),
                     float(recency), iso(last_time), profiled=actor_id in profiled),
            evidence=[ActorEvidence(lane="episodes", id=k) for k in ev],
            skills=skills.get(actor_id, []),
            dispatch=ActorDispatch(mode=dispatch_mode, available=dispatch_available(dispatch, dispatch_mode))))
    return out


def dispatch_available(dispatch: Dispatch, mode: str) -> bool:
    """Whether the settings allow handing work to an actor of this dispatch mode."""
    return dispatch.allows(mode)


def _why(lang: Lang, episodes: int, success: float, skills: list[ActorSkill], same_ws: bool, overlap: float,
         recency: float, last: str | None, profiled: bool) -> list[str]:
    """The FR-5.3 score's parts in words: profile, episodes, outcome, top skill, workspace, skill overlap, recency."""
    out = [msg("actor.profile", lang)] if profiled else []
    out.append(msg("actor.episodes", lang, episodes=episodes))
    if success >= 0.99:
        out.append(msg("actor.success", lang))
    elif success > 0:
        out.append(msg("actor.partial_success", lang))
    else:
        out.append(msg("actor.failure", lang))
    if skills:
        s = skills[0]
        out.append(msg("actor.skill", lang, name=s.name, uses=s.uses))
    if same_ws:
        out.append(msg("actor.same_workspace", lang))
    if overlap > 0:
        out.append(msg("actor.used_skills", lang))
    if last:
        out.append(msg("actor.recent" if recency >= 0.8 else "actor.last_active", lang, date=last[:10]))
    return out
