"""What the runs of one paper's own page teach about one question, read from the page's own views: GRanker's
two rankings (FastInsight §3.3), SG-RAG's query graph and matched subgraphs, ReG's evidence chains — the guided
demo's lessons on the other papers' pages, computed from their runs, never written by hand (the answer lessons
of Ask and Compare are :mod:`core.eval.lesson`'s).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.eval.lesson import RIGHT, and_list
from core.eval.verdicts import match_answer
from core.text import normalize_answer

#: How many ranks a page's ranking table shows: a gold node ranked below it is "not in the top 10".
TOP = 10


def granker_lines(rows: Sequence[tuple[str, int, int, bool]], alpha: float, *, top: int = TOP,
                  unit: str = "node") -> list[str]:
    """What GRanker did to the gold items of one question, read from the two rankings the GRanker page shows.

    ``rows`` are ``(title, plain rank, GRanker rank, gold)`` per candidate (ranks 1-based). The lines say where each
    gold item ranked in each ranking and whether GRanker moved the gold up or down ("Hugo Weaving 6 → not in the top
    10"), GRanker's top 3 against the plain one (:func:`top3_line`), and why smoothing can do that (FastInsight §3.3, Algorithm 2 L6:
    H′ = (1−α)H + αPH). Gold items outside the top ``top`` of both rankings are counted, not listed.

    >>> rows = [("A", 1, 2, False), ("B", 2, 1, False), ("G", 3, 12, True), ("C", 4, 3, False)]
    >>> granker_lines(rows, 0.2)[0]
    'GRanker (α = 0.2) moved the gold node down on this question: G 3 → not in the top 10 (rank 12).'
    """
    units = unit + "s"
    gold = sorted((r for r in rows if r[3]), key=lambda r: r[1])
    if not gold:
        return [f"No candidate {unit} of GRanker's ranking is gold, so this question cannot show whether smoothing "
                f"lifted the gold {units}."]
    shown = [r for r in gold if min(r[1], r[2]) <= top]
    rest = len(gold) - len(shown)

    def where(k: int) -> str:
        return str(k) if k <= top else f"not in the top {top} (rank {k})"

    moves = [f"{t} {where(p)} → {where(g)}" for t, p, g, _ in shown]
    up = sum(g < p for _, p, g, _ in shown)
    down = sum(g > p for _, p, g, _ in shown)
    which = f"the gold {unit if len(shown) == 1 else units}"
    verdict = (f"moved {which} up" if up and not down else f"moved {which} down" if down and not up else
               f"moved {up} gold {unit if up == 1 else units} up and {down} down" if up else f"left {which} in place")
    aside = (f" ({rest} more gold {unit if rest == 1 else units} rank below the top {top} in both)" if rest else "")
    if not shown:
        out = [f"Every gold {unit} ranks below the top {top} in both rankings (best: {gold[0][0]}, plain rank "
               f"{gold[0][1]}, GRanker rank {gold[0][2]}): on this question neither ranking brings the gold "
               f"{units} into view."]
    else:
        out = [f"GRanker (α = {alpha:g}) {verdict} on this question: {', '.join(moves)}{aside}."]
    out.append(top3_line(rows))
    if unit == "node":  # an audit saw Compare's R@5 = 100 for FastInsight beside "no gold among them" here
        out.append("Compare's R@5 counts passages, not nodes: the ranked nodes' passages, repeats dropped, so its top 5 "
                   "passages can come from the top 10 nodes or more, and hold every gold passage while no gold node "
                   "is in the top 3.")
    out.append("Why smoothing can do this: GRanker scores each candidate from its own reranker features mixed with "
               "those of its retrieved neighbours, H′ = (1−α)·H + α·P·H (FastInsight §3.3, Algorithm 2), so a "
               f"{unit} whose neighbours score high rises with them (a cluster of one other topic lifts itself), and "
               f"a gold {unit} whose neighbours score low is pulled down.")
    return out


def top3_line(rows: Sequence[tuple[str, int, int, bool]]) -> str:
    """GRanker's top 3 against the plain reranker's: kept (the same items, whatever their order), or which rose into
    it and which it pushed out. Audit 57 read "GRanker's top 3 instead: … (plain 1), (plain 2), (plain 3)" of the
    plain top 3 itself.

    >>> top3_line([("A", 1, 2, False), ("B", 2, 1, False), ("C", 3, 3, False), ("G", 4, 4, True)])
    "GRanker kept the plain reranker's top 3, in another order: B (plain 2), A (plain 1), C (plain 3): no gold among them."
    >>> top3_line([("A", 1, 1, False), ("B", 2, 4, False), ("G", 5, 2, True), ("C", 3, 3, False)])
    "GRanker's top 3: A (plain 1), G ✓ (plain 5), C (plain 3) — G rose into it, B (plain 2) fell to rank 4."
    """
    ours = sorted(range(len(rows)), key=lambda i: rows[i][2])[:3]
    theirs = sorted(range(len(rows)), key=lambda i: rows[i][1])[:3]
    names = ", ".join(f"{rows[i][0]}{' ✓' if rows[i][3] else ''} (plain {rows[i][1]})" for i in ours)
    none = ": no gold among them." if not any(rows[i][3] for i in ours) else "."
    if set(ours) == set(theirs):
        order = "" if ours == theirs else ", in another order"
        return f"GRanker kept the plain reranker's top 3{order}: {names}{none}"
    rose = [rows[i][0] for i in ours if i not in theirs]
    fell = [f"{rows[i][0]} (plain {rows[i][1]}) fell to rank {rows[i][2]}" for i in theirs if i not in ours]
    return f"GRanker's top 3: {names} — {and_list(rose)} rose into it, {and_list(fell)}{none}"


def granker_headline(rows: Sequence[tuple[str, int, int, bool]], alpha: float, *, top: int = TOP,
                     unit: str = "node") -> str:
    """:func:`granker_lines` in one line a class reads first: the gold items in each ranking's top ``top`` and how
    many GRanker moved up and down ("" without a gold item). An audit's lecturer found the GRanker step the only one
    without a headline, opening on a list of eight rank moves.

    The moves are counted as :func:`granker_lines` lists them: among the gold items in either top ``top`` (audit 49 read
    "5 moved up, 4 down" over lines that listed 4 and 4: a gold node moved from rank 40 to 30 was counted here only).

    >>> granker_headline([("A", 1, 2, False), ("G", 3, 12, True), ("H", 9, 4, True), ("K", 40, 30, True)], 0.2)
    "GRanker (α = 0.2): 1 gold node in its top 10, 2 in plain reranking's — 1 moved up, 1 down."
    """
    gold = [r for r in rows if r[3]]
    if not gold:
        return ""
    plain, ours = sum(p <= top for _, p, _, _ in gold), sum(g <= top for _, _, g, _ in gold)
    shown = [r for r in gold if min(r[1], r[2]) <= top]  # the gold items the lines list
    up, down = sum(g < p for _, p, g, _ in shown), sum(g > p for _, p, g, _ in shown)
    return (f"GRanker (α = {alpha:g}): {ours} gold {unit if ours == 1 else unit + 's'} in its top {top}, {plain} in "
            f"plain reranking's — {up} moved up, {down} down.")


def _norm(text: str) -> str:
    return normalize_answer(str(text or ""))


def _same(a: str, b: str) -> bool:
    """Whether two names are the same answer: equal once normalised, or one holds the other as whole words."""
    x, y = _norm(a), _norm(b)
    return bool(x and y) and (x == y or f" {x} " in f" {y} " or f" {y} " in f" {x} ")


@dataclass(frozen=True)
class QueryNode:
    """One node of SG-RAG's query graph, as the lesson names it."""

    id: str
    label: str  #: the entity, or "UNK"
    description: str = ""

    @property
    def unknown(self) -> bool:
        return self.label.strip().upper() == "UNK"

    @property
    def what(self) -> str:
        """What it stands for, the first part of its description: "The movie: starring him" → "the movie" ("" when
        none)."""
        what = self.description.split(":", 1)[0].split(";", 1)[0].strip()
        return what[:1].lower() + what[1:]

    @property
    def name(self) -> str:
        """“Keanu Reeves”, or the unknown “the main villain” from the first part of its description (one of several
        unknowns: :func:`node_names`)."""
        if not self.unknown:
            return f"“{self.label}”"
        return f"the unknown “{self.what}”" if self.what else "the unknown"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def node_names(nodes: Sequence[QueryNode]) -> dict[str, str]:
    """Each query node as a lesson line reads it aloud, by id: an entity by its label, an unknown by what its
    description says it stands for, never by its id (audit 57: a class cannot read "UNK q3 (the main villain)"). Only
    unknowns that read alike (the same description, or none) are told apart, by their place in the query graph.

    >>> ns = [QueryNode("q0", "UNK", "The date"), QueryNode("q1", "Lothair II"), QueryNode("q2", "UNK", "A person"),
    ...       QueryNode("q3", "UNK", "a person: his mother")]
    >>> node_names(ns)
    {'q0': 'the unknown “the date”', 'q1': '“Lothair II”', 'q2': 'the first unknown “a person”', 'q3': 'the second unknown “a person”'}
    """
    out = {n.id: n.name for n in nodes}
    alike: dict[str, list[QueryNode]] = {}
    for n in nodes:
        if n.unknown:
            alike.setdefault(n.what.lower(), []).append(n)
    for what, same in alike.items():
        if len(same) < 2:
            continue
        for k, n in enumerate(same):
            nth = ORDINALS[k] if k < len(ORDINALS) else f"{k + 1}th"
            out[n.id] = f"the {nth} unknown" + (f" “{n.what}”" if what else "")
    return out


def sgrag_lines(nodes: Sequence[QueryNode], edges: Sequence[tuple[str, str]],
                subgraphs: Sequence[Mapping[str, str]], answer: str, gold_answers: Sequence[str], *,
                fallback: bool = False, read_from: int | None = None, rule: str = "", question: str = "",
                chooser: str = "the model") -> list[str]:
    """What SG-RAG's own stages did on one question: what its query graph joined to what, which UNK of which matched
    subgraph the answer came from, and whether the gold answer was bound anywhere (and to which UNK).

    ``subgraphs`` are the matched subgraphs, best first, each query node id → the graph node it became. An answer that
    is a sentence holding a binding (SG-RAG without an LLM, :mod:`core.methods.sgrag.answer_typing`) was picked among
    all matches' passages, not read off match #1: the line says so, with the pick's ``rule`` when given and the match
    ``read_from`` (0-based, as the answer step recorded it) when given, else the first match whose UNK it names.
    ``chooser`` is what chose the answer, as the lines name it: "the model", or "the rule" on a run without an LLM
    (audit 57: the no-LLM step's lesson spoke of a model's choice). Each query node is named by :func:`node_names`.

    >>> ns = [QueryNode("q1", "Keanu Reeves"), QueryNode("q2", "UNK", "The movie: starring him"),
    ...       QueryNode("q3", "UNK", "The main villain")]
    >>> sgrag_lines(ns, [("q1", "q3"), ("q2", "q3")], [{"q1": "Keanu Reeves", "q2": "Hugo Weaving",
    ...             "q3": "Agent Smith"}], "Agent Smith", ["Hugo Weaving"])[1]
    'The answer “Agent Smith” is what the unknown “the main villain” became in the rank-1 matched subgraph (of 1); there the unknown “the movie” became “Hugo Weaving”. It is not the gold answer, “Hugo Weaving”.'
    """
    by_id = {n.id: n for n in nodes}
    name = node_names(nodes)
    out = []
    if edges:
        hub = max(by_id, key=lambda q: (sum(q in e for e in edges), -list(by_id).index(q)))
        spokes = [b if a == hub else a for a, b in edges if hub in (a, b)]
        others = [f"{name[a]} – {name[b]}" for a, b in edges if hub not in (a, b) and a in by_id
                  and b in by_id]
        line = (f"The query graph joins {and_list([name[q] for q in spokes if q in by_id])} to "
                f"{name[hub]}" + (f", and {and_list(others)}" if others else "") + ".")
        near = misplaced_hub(by_id, hub, spokes, question)
        if near:  # in the first line, which opens the tour's page: folded under it, an audit's class never saw why;
            # said plainly first (audit 53 read "the two UNKs are swapped" after the joins twice before it made sense)
            who = and_list([name[u] for u in spokes if u in by_id and not by_id[u].unknown])
            line = (f"The query graph swapped its two unknowns: the question puts {who} with {name[near]}, "
                    f"the graph joins them to {name[hub]}. So the matching looks for {by_id[hub].what or name[hub]} where "
                    f"{by_id[near].what or name[near]} should be, and the other way round.")
        elif len(spokes) > 1:
            line += (f" Every path between the question's entities runs through {name[hub]}: that is what the "
                     "matching looks for in the graph.")
        out.append(line)
    else:
        out.append("The query graph has no edge: nothing joins its nodes, so no path can be matched.")
    unks = [n.id for n in nodes if n.unknown]
    if fallback or not subgraphs:
        out.append("No subgraph of the graph matched the query graph" + (
            ", so SG-RAG fell back to the 1-hop neighbourhood of the question's entities" if fallback else "") + ".")
    else:
        n = len(subgraphs)
        hit = next(((i, q) for i, sg in enumerate(subgraphs) for q in unks if q in sg and _norm(sg[q]) == _norm(answer)),
                   None)
        if hit is None:  # a sentence: the match it names most UNK bindings of (ties: the best ranked), its first such UNK
            named = [[q for q in unks if q in sg and _same(sg[q], answer)] for sg in subgraphs]
            best = max(range(n), key=lambda i: (len(named[i]), -i))
            hit = (best, named[best][0]) if named[best] else None
        if not _norm(answer):
            out.append("SG-RAG gave no answer.")
        elif hit is None:
            out.append(f"The answer “{answer.strip()}” is bound to no unknown of the {n} matched subgraph"
                       f"{'s' if n > 1 else ''}: {chooser} did not take it from the matches.")
        else:
            i, q = hit
            if read_from is not None and 0 <= read_from < n:
                i, q = read_from, next((u for u in unks if u in subgraphs[read_from]
                                        and _same(subgraphs[read_from][u], answer)), q)
            there = [f"{name[u]} became “{subgraphs[i][u]}”" for u in unks if u != q and u in subgraphs[i]]
            if q in subgraphs[i] and _norm(subgraphs[i][q]) != _norm(answer):  # a sentence holding the binding
                how = rule.rstrip(". ") or "the no-LLM rule (the sentence that best matches the question)"
                out.append(f"The answer sentence “{answer.strip()}” comes from match #{i + 1} of {n}, where "
                           f"{name[q]} became “{subgraphs[i][q]}”" + (f" and {and_list(there)}" if there else "")
                           + f"; {how} picked it among all {n} matches' passages" + (" (not match #1)." if i else ".")
                           + _holds(answer, gold_answers))
            else:
                out.append(f"The answer “{answer.strip()}” is what {name[q]} became in the rank-{i + 1} matched "
                           f"subgraph (of {n})" + (f"; there {and_list(there)}" if there else "") + "."
                           + wrong_by(answer, gold_answers))
        gold = next(((i, q, sg[q]) for i, sg in enumerate(subgraphs) for q in unks if q in sg
                     and any(_same(sg[q], g) for g in gold_answers if _norm(g))), None)
        g0 = str(gold_answers[0]) if gold_answers else ""
        m = match_answer(answer, gold_answers) if gold_answers else None
        if (m is not None and m.kind in RIGHT) or (gold is not None and hit is not None and gold[:2] == hit):
            pass  # right, or the answer sentence holds the gold binding its match was named by (said above)
        elif gold is None:
            out.append(f"The gold answer “{g0}” is bound to no unknown of the matched subgraphs: the matching never "
                       "reached it.")
        else:
            i, q, _v = gold
            same = hit is not None and hit[1] != q
            out.append(f"The gold answer “{g0}” was there: {name[q]} became it in the rank-{i + 1} subgraph"
                       + (f" — {chooser} read the answer from the other unknown, {name[hit[1]]}." if same and hit
                          else "."))
    return out


def _holds(answer: str, gold_answers: Sequence[str]) -> str:
    """" It holds the gold answer, “20 March 851”." after an answer sentence that holds one whole ("" otherwise): on the
    tour's no-LLM Lothair step only the fold's title said so (audit 54)."""
    m = match_answer(answer, gold_answers) if gold_answers else None
    return f" It holds the gold answer, “{m.gold}”." if m is not None and m.kind == "contains" else ""


def wrong_by(answer: str, gold_answers: Sequence[str]) -> str:
    """" It is not the gold answer, “Hugo Weaving”." after a wrong answer's line ("" when it is right, or no gold):
    the tour's SG-RAG step said what the movie's UNK became and left "Agent Smith" standing as an answer (an audit)."""
    if not gold_answers or not _norm(str(gold_answers[0])):
        return ""
    m = match_answer(answer, gold_answers)
    return "" if m is not None and m.kind in RIGHT else f" It is not the gold answer, “{gold_answers[0]}”."


def _head_noun(node: QueryNode) -> str:
    """The noun an UNK's description names it by: "The movie: starring him" → "movie" ("" when none)."""
    words = re.findall(r"[a-z]+", node.description.split(":", 1)[0].split(";", 1)[0].lower())
    return words[-1] if words and len(words[-1]) > 2 else ""


def misplaced_hub(by_id: Mapping[str, QueryNode], hub: str, spokes: Sequence[str], question: str) -> str:
    """The UNK the question's words put its named entities with ("q3": "the movie where Keanu Reeves and …") when the
    query graph joins two or more of them to another UNK, the hub (an audit: the lesson described a swapped graph
    without saying it was wrong): the nearest UNK noun before the first entity's mention names a different UNK than
    the hub. "" otherwise, and whenever the question's words do not decide it.

    >>> ns = {"q1": QueryNode("q1", "Keanu Reeves"), "q2": QueryNode("q2", "Laurence Fishburne"),
    ...       "q3": QueryNode("q3", "UNK", "The movie: both starred in it"), "q4": QueryNode("q4", "UNK", "The main villain")}
    >>> misplaced_hub(ns, "q4", ["q1", "q2", "q3"], "Who played the main villain in the movie where Keanu Reeves and "
    ...               "Laurence Fishburne starred together?")
    'q3'
    >>> misplaced_hub(ns, "q3", ["q1", "q2", "q4"], "Who played the main villain in the movie where Keanu Reeves and "
    ...               "Laurence Fishburne starred together?")
    ''
    """
    q = question.lower()
    named = [u for u in spokes if u in by_id and not by_id[u].unknown and by_id[u].label.lower() in q]
    if len(named) < 2 or hub not in by_id or not by_id[hub].unknown:
        return ""
    first = min(q.index(by_id[u].label.lower()) for u in named)
    nouns = {u: _head_noun(n) for u, n in by_id.items() if n.unknown}
    before = [(m.start(), u) for u, noun in nouns.items() if noun
              for m in re.finditer(rf"\b{re.escape(noun)}\b", q[:first])]
    if not before:
        return ""
    _pos, near = max(before)
    return "" if near == hub else near


def reg_lines(chains: Sequence[tuple[str, Sequence[str], int]], answer: str, gold_answers: Sequence[str], *,
              chooser: str = "the model") -> list[str]:
    """What ReG's evidence chains did on one question: the chain the answer came from and whether any chain holds
    the gold answer. ``chains`` are ``(text, its entities, how many paths were merged into it)`` in prompt order.
    ``chooser`` names what answered: "the model", or "the rule" on a run without an LLM (as :func:`sgrag_lines`).

    >>> cs = [("A → [played] → B", ("A", "B"), 1), ("C → [played] → Gold", ("C", "Gold"), 1)]
    >>> reg_lines(cs, "B", ["Gold"])[1]
    'The gold answer “Gold” is in 1 of the 2 chains (chain 2: C → [played] → Gold): the evidence was there.'
    """
    n = len(chains)
    out = []
    g0 = str(gold_answers[0]) if gold_answers else ""
    if not n:
        return ["ReG built no evidence chain on this question, so its answer rests on no chain."]
    holds = [i for i, (_t, ents, _m) in enumerate(chains) if any(_same(e, answer) for e in ents)]
    if not _norm(answer):
        out.append(f"ReG gave no answer from its {n} chains.")
    elif not holds:
        out.append(f"The answer “{answer.strip()}” is in none of the {n} evidence chains: {chooser} did not take it "
                   "from them.")
    else:
        i = holds[0]
        more = f" (and {len(holds) - 1} more)" if len(holds) > 1 else ""
        out.append(f"The answer “{answer.strip()}” comes from chain {i + 1} of {n}{more}: {chains[i][0]}.")
    m = match_answer(answer, gold_answers) if gold_answers else None
    gold = [i for i, (_t, ents, _m) in enumerate(chains) if any(_same(e, g) for e in ents for g in gold_answers
                                                                  if _norm(g))]
    if m is not None and m.kind in RIGHT:
        return out
    if gold:
        i = gold[0]
        merged = (" It was merged from several paths, so the prompt shows it once." if chains[i][2] > 1 else "")
        out.append(f"The gold answer “{g0}” is in {len(gold)} of the {n} chains (chain {i + 1}: {chains[i][0]}): the "
                   f"evidence was there.{merged}")
    else:
        out.append(f"The gold answer “{g0}” is in none of the {n} chains: the triples ReG kept never reached it.")
    return out
