"""The grouping review's token budget (``prompts.grouping_review_max_tokens``) holds the longest reply its
schema allows, counted with the shipped 1.5B model's own tokenizer: a fixed 200 cut 16 of the 19 review
replies recorded on MuSiQue (five to seven groups of five) mid-reply, and every try of those reviews failed."""

from __future__ import annotations

import json

import pytest

from core.methods.bubblerag import prompts


def _longest_reply(groups: list[tuple[str, list[str]]], takeable: dict[str, list[str]]) -> str:
    """The longest reply :func:`prompts.grouping_review_schema` allows, spaced as the model writes JSON: every
    member kept, the most elements taken, two-digit weights, the most ``same`` pairs."""
    schema = prompts.grouping_review_schema(groups, takeable)["properties"]
    body: dict[str, object] = {}
    for gid, members in groups:
        body[gid] = entry = {"weight": 0.25, "keep": list(dict.fromkeys(members))}
        if "take" in (props := schema[gid]["properties"]):  # a group with nothing takeable has no "take"
            entry["take"] = takeable[gid][:props["take"]["maxItems"]]
    n_same = schema["same"]["maxItems"]
    body["same"] = [["g1", f"g{i + 2}"] for i in range(n_same)]
    return json.dumps(body)


def _groups(sizes: list[int]) -> list[tuple[str, list[str]]]:
    out, n = [], 1
    for i, k in enumerate(sizes):
        out.append((f"g{i + 1}", [f"c{n + j}" for j in range(k)]))
        n += k
    return out


def _takeable(groups: list[tuple[str, list[str]]], per: int) -> dict[str, list[str]]:
    """Each group's search also found ``per`` elements of the next group (a candidate found for two concepts)."""
    return {gid: groups[(i + 1) % len(groups)][1][:per] for i, (gid, _) in enumerate(groups)}


@pytest.mark.parametrize("per", [0, 2, 5])
@pytest.mark.parametrize("sizes", [[5, 5], [5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 5], [10, 5, 6, 5, 1, 8, 5], [1, 1, 1]])
def test_the_budget_holds_the_longest_reply_the_schema_allows(sizes, per):
    groups = _groups(sizes)
    budget = prompts.grouping_review_max_tokens(groups, _takeable(groups, per))
    assert budget >= prompts.STAGE_MAX_TOKENS["grouping_review"]
    assert budget <= 3 * max(prompts.STAGE_MAX_TOKENS["grouping_review"], 20 * sum(sizes))  # not unbounded


@pytest.mark.model
@pytest.mark.parametrize("per", [0, 3])
@pytest.mark.parametrize("sizes", [[5, 5], [5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 5], [10, 5, 6, 5, 1, 8, 5]])
def test_the_budget_counts_qwen_tokens(sizes, per):
    """Counted with the 1.5B GGUF's vocabulary (loaded alone, no weights): the reply fits, and the budget is not
    far above it (a budget far above the reply lets a runaway reply cost seconds for nothing)."""
    from llama_cpp import Llama

    from core.backends.gguf import ensure_model

    vocab = Llama(model_path=str(ensure_model("1.5b")), vocab_only=True, verbose=False)
    groups = _groups(sizes)
    takeable = _takeable(groups, per)
    need = len(vocab.tokenize(_longest_reply(groups, takeable).encode(), add_bos=False))
    budget = prompts.grouping_review_max_tokens(groups, takeable)
    assert need <= budget <= max(prompts.STAGE_MAX_TOKENS["grouping_review"], int(need * 1.5)), (need, budget)
