"""Two none-mode answers of an audit's tea-trade corpus (core.methods.extractive, rules 3 and 4):

- "Which city is the auction house that sold the Kesterbrook Estate's teas headquartered in?" was answered "The
  Kesterbrook Estate is a tea garden in the Sallow Hills.": a range of hills counted as the city asked for
  (core.methods.answer_types.settlement_asked_but_not).
- "In what year was the chairman of the company that bought the Marrowind Tea Company born?" was answered with the year
  the seller took charge: "In 1924 he sold the company to Bellcastle Holdings" did not say who bought the company
  (core.methods.bridge_hops.named_before), and "Its chairman … was Perpetua Vane" not who its chairman was
  (core.methods.bridges.clause_bridges), so the chairman's "born in 1880" sentence was never read.

The names below are not the audit's."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.answer_types import settlement_asked_but_not, typed_mentions
from core.methods.base import Backends
from core.methods.bridge_hops import named_before
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


ESTATE = ("o1", "Pellow Orchard", "The Pellow Orchard is a cider orchard in the Carrow Hills. It was bought by the "
          "Tamsin Cider Company in 1889. Its cider was sold each spring at the Quarry Auction House.")
AUCTION = ("o2", "Quarry Auction House", "The Quarry Auction House was founded in 1860 by Jory Quarry. It is "
           "headquartered in Brackmouth, on Salt Street, and held the first public cider auction of the region.")
BRACKMOUTH = ("o3", "Brackmouth", "Brackmouth is a river city known for its trading houses and its auction rooms.")


def test_which_city_is_not_answered_by_a_range_of_hills():
    q = "Which city is the auction house that sold the Pellow Orchard's cider headquartered in?"
    pick = pick_sentence(q, [ESTATE, AUCTION, BRACKMOUTH], _backends())
    assert "Brackmouth" in pick.text, pick.candidates[:3]
    assert "Carrow Hills" not in pick.text


def test_a_settlement_question_leaves_out_hills_streets_and_rivers_only():
    assert settlement_asked_but_not("the Carrow Hills", "Which city was she born in?")
    assert settlement_asked_but_not("Salt Street", "In which town is the firm based?")
    assert settlement_asked_but_not("Aske", "Which town was he born in?", "born in Lynby, a town on the river Aske")
    # a region may be hills; a town may end in "Bay" or "Vale"
    assert not settlement_asked_but_not("the Carrow Hills", "Which region is the orchard in?")
    assert not settlement_asked_but_not("Ostrel Bay", "Which town is the creamery in?")
    assert not settlement_asked_but_not("Caddon Vale", "Which city was she born in?")


def test_a_town_is_found_after_a_birth_year_or_called_a_town():
    assert "Verrano" in typed_mentions("Ilse Marchetti was a botanist born in 1872 in Verrano.", "place", names=True)
    assert "Lynby" in typed_mentions("Osric Pell was born in 1839 in Lynby, a weaving town on the river Aske.",
                                     "place", names=True)
    assert "Brackmouth" in typed_mentions(BRACKMOUTH[2], "place", names=True)


def test_the_company_is_the_company_named_before_it():
    assert named_before("In 1924 he sold the company to Castlemere Holdings.",
                        "Edwin Harrow He took charge of the Harrow Tea Company in 1899.") == (
        "In 1924 he sold the Harrow Tea Company to Castlemere Holdings.",)
    # nothing before it ends in the noun: no reading
    assert named_before("In 1924 he sold the company to Castlemere Holdings.", "He ran the Harrow Tea Works.") == ()


def test_its_chairman_was_resolves_the_chairman_of():
    q = "In what year was the chairman of Castlemere Holdings born?"
    bridges = clause_bridges(q, ["Castlemere Holdings's chairman from 1919 to 1940 was Perpetua Quill."])
    assert [b[1] for b in bridges] == ["Perpetua Quill"]
    assert clause_bridges(q, ["Castlemere Holdings was founded in 1900. Its office was run by Perpetua Quill."]) == []


SELLER = ("t4", "Edwin Harrow", "Edwin Harrow, the elder son of Amos Harrow, was born in 1868. He took charge of the "
          "Harrow Tea Company in 1899. In 1924 he sold the company to Castlemere Holdings and retired to the coast.")
COMPANY = ("t0", "Harrow Tea Company", "The Harrow Tea Company was founded in 1871 in Dunby by Amos Harrow. It began as "
           "a single warehouse on the quays.")
TRAP = ("t16", "Harrowfield Teas", "Harrowfield Teas was a small tea company founded in 1880 in Lynby by Osgood Penn. "
        "It closed in 1902.")
HOLDINGS = ("t5", "Castlemere Holdings", "Castlemere Holdings was a trading conglomerate headquartered in Dunby. Its "
            "chairman from 1919 to 1940 was Perpetua Quill. Under her the company bought several tea firms.")
QUILL = ("t6", "Perpetua Quill", "Perpetua Quill was born in 1880 in Olby. She trained as a tea taster.")


def test_a_born_question_reads_the_chain_to_the_chairman():
    q = "In what year was the chairman of the company that bought the Harrow Tea Company born?"
    pick = pick_sentence(q, [COMPANY, SELLER, TRAP, ("t7", "Tea auctions", "Tea was sold at auction in Dunby."),
                             ("t8", "Dunby", "Dunby is a port city."), HOLDINGS, QUILL], _backends())
    assert [b.split(" (")[0] for b in pick.bridges] == ["Castlemere Holdings", "Perpetua Quill"], pick.bridges
    assert pick.text == "Perpetua Quill was born in 1880 in Olby.", pick.candidates[:3]
