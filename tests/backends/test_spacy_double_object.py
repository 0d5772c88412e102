"""Audit 35, Isolde Varn's page: "awarded Varn the Lumen Medal" made one node "Varn the Lumen Medal" (the small model's
one entity over both objects; with "Isolde Varn" the parser also took "Varn" for a verb and merged the whole span),
and "Varn moved back to Velmora" a bare node "Varn"; "Comet Varn" is a name of its own."""

from __future__ import annotations

import pytest

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


@pytest.mark.parametrize(("title", "text"), [
    ("Isolde Varn", "Isolde Varn was an astronomer. In 1925 the Quorvath Astronomical Society awarded Varn the Lumen "
                    "Medal for her comet discoveries."),
    # a full name before the thing given stays a name (the parser took "Varn" for a verb there)
    ("Velmora", "Velmora is a town. In 1925 the Quorvath Astronomical Society awarded Isolde Varn the Lumen Medal "
                "for her comet discoveries."),
])
def test_awarded_x_the_y_gives_y_with_x_the_recipient(ex, title, text):
    got = triples(ex, title, text)
    assert ("Quorvath Astronomical Society", "awarded", "Lumen Medal") in got, got
    assert ("Quorvath Astronomical Society", "awarded", "Isolde Varn") in got, got
    assert not any("the Lumen Medal" in n for n in nodes(got)), got


def test_comet_varn_is_its_own_name_and_the_surname_the_title(ex):
    got = triples(ex, "Isolde Varn",
                  "Isolde Varn was an astronomer of the province of Quorvath. In 1908 she discovered the periodic "
                  "comet now called Comet Varn. After her husband sold the observatory in 1938, Varn moved back to "
                  "Velmora and taught navigation at the Lyceum. She died there in 1958.")
    assert "Comet Varn" in nodes(got), got
    assert "Varn" not in nodes(got), got
    assert ("Isolde Varn", "taught at", "Lyceum") in got, got
