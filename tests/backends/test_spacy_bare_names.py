"""A bare first word of a longer name is that name's node, a firm "X and Y Trading" stays whole, a pronoun object or a
relative "who" gives no edge of its own, a copula's participle is its subject's, and a list is no apposition —
readings audits 39 and 40 found wrong on their apiary and kite-maker corpora; and audit 41's typewriter corpus: "Marrick
and Stoll" the firm the passage names, "the Telk and Quillom Press" whole, "the consortium owned …" a clause, and a
bare "Pellow" among its namesakes; audit 43's perfume corpus: "it"/"its" never a person, no "born in · east",
"the glasshouse …, called X," is X, "the guild's first president, X" is X and "the Atelier" the Verlaque Atelier."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_firm_x_and_y_trading_is_one_name(ex):
    """The model cut "Harrow and Pell Trading" into "Harrow" and "Pell Trading": the company closed the workshop."""
    got = triples(ex, "Tansley Kite Works\nIn 1931 the company was bought by Harrow and Pell Trading, which moved "
                      "production inland and closed the Quillan Bay workshop in 1934.")
    assert ("Tansley Kite Works", "bought by", "Harrow and Pell Trading") in got, got
    assert ("Harrow and Pell Trading", "closed in", "1934") in got, got
    assert not {"Harrow", "Pell Trading"} & nodes(got), got


def test_a_bare_first_word_is_the_one_longer_name_it_starts(ex):
    """"Dunmere" is Dunmere Holdings, "Quillon" the title Quillon Honey Company, "Orla" the title Orla Fenwick."""
    got = triples(ex, "Quillon Honey Company\nIn 1958 the Quillon Honey Company was taken over by Dunmere Holdings, "
                      "a trading group that also owned flour mills. Under Dunmere the company closed two of its three "
                      "packing halls. The Quillon name is still used on jars of heather honey sold today.")
    assert ("Quillon Honey Company", "closed under", "Dunmere Holdings") in got, got
    assert not {"Dunmere", "Quillon"} & nodes(got), got
    got = triples(ex, "Orla Fenwick\nFenwick married the schoolmaster Tobin Fenwick in 1879. Their only daughter, "
                      "Petra Fenwick, was born in Harnsey in 1880. Orla taught her daughter to find a queen.")
    assert "Orla" not in nodes(got), got
    assert ("Orla Fenwick", "married", "Tobin Fenwick") in got, got


def test_a_bare_place_is_no_persons_first_name(ex):
    """A place never stands for a person: "Washington" is no short name of Washington Irving."""
    got = triples(ex, "Washington Irving\nWashington Irving was an American writer. In 1842 he moved to Madrid, and "
                      "he later lived in Washington.")
    assert ("Washington Irving", "lived in", "Washington") in got, got


def test_a_pronoun_object_has_no_date_and_she_is_the_named_winner(ex):
    """"who received it in 1891": the receiving is Petra's, not the medal's; "She won it again" after "The first winner
    of the Golden Comb Medal was Petra Fenwick" is Petra (the title is a medal, not a "she")."""
    got = triples(ex, "Golden Comb Medal\nThe Golden Comb Medal is an award for skill in beekeeping. The first winner "
                      "of the Golden Comb Medal was Petra Fenwick, who received it in 1891 at the age of eleven. She "
                      "won it again in 1904 and in 1911, the only person to win it three times.")
    assert ("Petra Fenwick", "received in", "1891") in got, got
    assert ("Petra Fenwick", "won in", "1911") in got, got
    assert not any(h == "Golden Comb Medal" and r in ("received in", "won in") for h, r, _ in got), got
    got = triples(ex, "Ostra Guild\nThe Ostra Guild is a guild of weavers. Hester Quill founded it in 1912.")
    assert ("Ostra Guild", "founded in", "1912") in got, got


def test_a_copulas_noun_with_a_participle_gives_the_participle_to_the_subject(ex):
    """The parser read "a kite festival held …" as a clause of its own: the fair is held, not "kite festival"."""
    got = triples(ex, "Brackmere Wind Fair\nThe Brackmere Wind Fair is a kite festival held each September in "
                      "Brackmere since 1905.")
    assert ("Brackmere Wind Fair", "held since", "1905") in got, got
    assert ("Brackmere Wind Fair", "is", "kite festival") in got, got
    assert "kite festival" not in {h for h, _, _ in got}, got


def test_a_list_item_after_a_comma_is_no_apposition(ex):
    """"the best colony, the best comb honey, or …" lists what the medal is awarded for; "Ostra, a market town, and
    Vell" keeps its apposition (a name heads it)."""
    got = triples(ex, "Golden Comb Medal\nThe medal is a small disc. It is awarded for the best colony, the best comb "
                      "honey, or for work that improves the bees of the district.")
    assert ("best colony", "is", "best comb honey") not in got, got
    assert ("Golden Comb Medal", "awarded for", "best comb honey") in got, got
    got = triples(ex, "Ostra\nOstra, a market town, and Vell lie on the river.")
    assert ("Ostra", "is", "market town") in got, got


def test_a_released_it_keeps_its_date_and_the_others_are_no_he(ex):
    """Guards from MuSiQue: only a received "it" loses the date ("Columbia Records released it on …" dates the
    song); "The others were Dave Rodger, …" in a footballer's page leaves the next "he" the footballer."""
    got = triples(ex, "Winter Song\nWinter Song is a song by Ada Vell. Columbia Records released it on November 1, "
                      "1994.")
    assert ("Winter Song", "released on", "November 1, 1994") in got, got
    got = triples(ex, "Peter Aitken\nAitken joined Bristol City in 1980. The others were Dave Rodger and Geoff "
                      "Merrick. While at Rovers he was the club captain.")
    assert ("Peter Aitken", "was", "club captain") in got, got
    assert not any(h == "Dave Rodger" and r.startswith("was") for h, r, _ in got), got


def test_an_object_complement_and_a_works_title_are_no_part_of_the_name(ex):
    """"kept the Brackwater Apiary running" is no node "Brackwater Apiary running"; a work's title after its noun
    and a comma is whole ("Saffron Sails at Dusk", "Notes on Wind"), not cut at "at"/"on"."""
    got = triples(ex, "Quillon Honey Company\nUnder Dunmere Holdings the company closed two packing halls but kept "
                      "the Brackwater Apiary running.")
    assert ("Quillon Honey Company", "kept", "Brackwater Apiary") in got, got
    got = triples(ex, "Mirela Vost\nMirela Vost was a painter. Her best known painting, Saffron Sails at Dusk, shows "
                      "kites flying above the harbour wall. She wrote one short book, Notes on Wind, printed in 1911.")
    assert {"Saffron Sails at Dusk", "Notes on Wind"} <= nodes(got), got
    assert not {"Saffron Sails", "Notes"} & nodes(got), got


def test_a_maiden_name_is_the_married_name_the_passage_uses(ex):
    """"Pell married Miriam Lusk … Miriam Pell kept …": one person, under the name the text goes on with."""
    got = triples(ex, "Josiah Pell\nJosiah Pell was a beekeeper. He kept bees. Pell married Miriam Lusk in 1876. "
                      "She was born in 1853 in Tillow Cross. Miriam Pell kept a small herb garden for the bees.")
    assert ("Josiah Pell", "married", "Miriam Pell") in got, got
    assert ("Miriam Pell", "born in", "Tillow Cross") in got, got
    assert "Miriam Lusk" not in nodes(got), got


def test_it_after_the_group_is_the_group_not_the_annals_title(ex):
    """"The group never made bells itself, and in 1969 it closed the Fallowgate works": "it" is the group the text
    named (the Ambery Group), not the page "Ambery Group Annals" (audit 38)."""
    got = triples(ex, "Ambery Group Annals\nThe Ambery Group is an engineering firm based in Saltmere. In 1958 the "
                      "Ambery Group took over the Teskel Metal Company. The group never made bells itself, and in 1969 "
                      "it closed the Fallowgate works.")
    assert ("Ambery Group", "closed", "Fallowgate works") in got, got
    assert not any(h == "Ambery Group Annals" and r.startswith("closed") for h, r, _ in got), got


def test_a_works_title_after_a_noun_phrase_is_the_works(ex):
    """"a method book for young players, Twelve Lessons at the Clavier, which was printed in 1931": the title is the
    book's, whole, and so is the printing (audit 38 read "Clavier · printed in · 1931")."""
    got = triples(ex, "Marit Holloway\nHolloway wrote a method book for young players, Twelve Lessons at the Clavier, "
                      "which was printed in 1931.")
    assert ("method book", "is", "Twelve Lessons at the Clavier") in got, got
    assert not any(h in ("young players", "Clavier") for h, _, _ in got), got
    # a name the model tagged a work is no title of the album before it (MuSiQue)
    got = triples(ex, "Luv Is Rage 2\nLuv Is Rage 2 is the debut studio album by American rapper Lil Uzi Vert.")
    assert ("Luv Is Rage 2", "is", "Lil Uzi Vert") not in got, got


def test_a_bare_place_word_is_no_title_the_model_tagged_a_person(ex):
    """MuSiQue: the small model tagged the title line "Batesville Regional Airport" PERSON; "Batesville" (the city)
    is no short name of it, nor "Sapporo" of one of several "Sapporo …" names."""
    got = triples(ex, "Batesville Regional Airport\nBatesville Regional Airport is a public-use airport located three "
                      "nautical miles south of the central business district of Batesville, in Independence County, "
                      "Arkansas, United States. It is owned by the City of Batesville.")
    assert "Batesville" in nodes(got), got


def test_x_and_y_is_the_firm_x_and_y_holdings_the_passage_names(ex):
    """"Under Marrick and Stoll the company moved its works": one node, the firm named before, no "Marrick", "Stoll"."""
    got = triples(ex, "Pellow Typewriter Company\nIn 1923 the Pellow Typewriter Company was bought by Marrick and Stoll "
                      "Holdings, a trading group that owned several stationery firms. Under Marrick and Stoll the "
                      "company moved its works to a larger site on the edge of Durrowick.")
    assert ("Pellow Typewriter Company", "moved under", "Marrick and Stoll Holdings") in got, got
    assert not {"Marrick", "Stoll", "Marrick and Stoll"} & nodes(got), got


def test_x_and_y_press_is_one_firm(ex):
    """"the Telk and Quillom Press" was cut to "Quillom Press" (Oswin Telk's share lost)."""
    got = triples(ex, "Hesper Quillom\nIn 1912 Hesper Quillom married the bookbinder Oswin Telk. Together they ran "
                      "the Telk and Quillom Press in Durrowick, which printed poetry and maps until 1938.")
    assert ("Hesper Quillom", "ran", "Telk and Quillom Press") in got, got
    assert "Quillom Press" not in nodes(got), got


def test_the_noun_and_past_form_before_a_list_is_a_clause_not_a_node(ex):
    """"By 1960 the consortium owned paper mills, an ink works …" read "the consortium owned" as an adjective: the node
    "By 1960 the consortium owned paper mills" with "· is · ink works"; likewise "The consortium financed cargo ships
    and warehouses and, from the 1930s, bought industrial firms"."""
    got = triples(ex, "Vennholt Consortium\nThe Vennholt Consortium was a banking and shipping concern. The consortium "
                      "financed cargo ships and warehouses and, from the 1930s, bought industrial firms whose owners "
                      "wanted to retire. By 1960 the consortium owned paper mills, an ink works and two shipping lines.")
    assert not [n for n in nodes(got) if "consortium" in n], got
    for owned in ("paper mills", "ink works", "two shipping lines"):
        assert ("Vennholt Consortium", "owned", owned) in got, got
    assert ("Vennholt Consortium", "bought", "industrial firms") in got, got
    assert ("Vennholt Consortium", "financed", "cargo ships") in got, got


def test_a_family_owned_business_stays_one_noun(ex):
    """Guard: "a family owned business" (no "the" before the owner) is no clause."""
    got = triples(ex, "Harlan Mill\nHarlan Mill is a family owned business in Tarnside.")
    assert not [t for t in got if t[1] == "owned"], got


def test_a_bare_word_of_several_names_is_its_one_person_or_no_node(ex):
    """"Production ended in 1968, when the last Pellow works closed": no bare "Pellow" node beside Anselm Pellow, the
    Pellow Typewriter Company and the Pellow Medal."""
    got = triples(ex, "Pellow Typewriter Company\nThe Pellow Typewriter Company was a maker of portable typewriters "
                      "founded in 1891 by Anselm Pellow in the town of Durrowick. The Model F, introduced in 1931, was "
                      "the first Pellow machine with a two-colour ribbon. Production ended in 1968, when the last "
                      "Pellow works closed. Many Pellow machines survive in private collections. The company also "
                      "gave its name to the Pellow Medal, an award for fine typography.")
    assert "Pellow" not in nodes(got), got
    assert ("Pellow Typewriter Company", "founded by", "Anselm Pellow") in got, got


def test_a_saints_name_with_a_possessive_is_the_church(ex):
    """"a churchwarden of Saint Anne's" is the church: the node keeps its "'s" (audit 39's "Saint Anne")."""
    got = triples(ex, "Josiah Pell\nJosiah Pell was a beekeeper. He was a churchwarden of Saint Anne's for many years.")
    assert ("Josiah Pell", "churchwarden of", "Saint Anne's") in got, got


# audit 42's violin-maker corpus


def test_a_bare_word_the_firm_title_starts_with_is_the_firm(ex):
    """"Halvet grew" in the passage "Halvet Instruments" is the firm, not the founder Ruben Halvet named just before;
    "kept the Halvet brand" keeps the firm's brand (the kind noun "brand" is its name's)."""
    got = triples(ex, "Halvet Instruments\nHalvet Instruments is a maker of pianos and harps. The company was founded "
                      "in 1899 by the brothers Oskar Halvet and Ruben Halvet. Halvet grew quickly in the twentieth "
                      "century. In 1986 Halvet Instruments was taken over by the Varnholt Group. Varnholt kept the "
                      "Halvet brand but moved piano production to Sedgeford.")
    assert ("Halvet Instruments", "grew in", "twentieth century") in got, got
    assert not [t for t in got if "Ruben Halvet" in (t[0], t[2]) and t[1] in ("grew in", "kept")], got


def test_a_she_the_model_tagged_org_owns_her_nephew(ex):
    """"Tamsin Orvane ran the business until 1921, when she handed it to her nephew": she and her are Tamsin Orvane
    (tagged ORG by the small model), not the workshop of the title; "Orvane's nephew X" is hers too."""
    got = triples(ex, "Orvane Violin Workshop\nThe Orvane Violin Workshop is a string-instrument maker based in the "
                      "town of Keldmoor. It was founded in 1884 by the luthier Tamsin Orvane. Tamsin Orvane ran the "
                      "business until 1921, when she handed it to her nephew Corwin Abernel.")
    assert ("Corwin Abernel", "nephew of", "Tamsin Orvane") in got, got
    assert ("Corwin Abernel", "nephew of", "Orvane Violin Workshop") not in got, got
    got = triples(ex, "Tamsin Orvane\nTamsin Orvane was a luthier. She was born in Pennock Vale. Orvane married the "
                      "schoolteacher Emrys Dunleigh in 1880. They had no children, and Orvane's nephew Corwin "
                      "Abernel later took over the workshop she built.")
    assert ("Corwin Abernel", "nephew of", "Tamsin Orvane") in got, got


def test_a_participle_after_an_object_is_the_objects(ex):
    """"she was given the Grey Lark violin, made a year earlier by X": the violin was made by X, not she."""
    got = triples(ex, "Ilse Varrow\nIlse Varrow was a violin soloist. In 1903 she was given the Grey Lark violin, made "
                      "a year earlier by the Orvane Violin Workshop in Keldmoor, and she played it for thirty years.")
    assert ("Grey Lark violin", "made by", "Orvane Violin Workshop") in got, got
    assert ("Ilse Varrow", "made by", "Orvane Violin Workshop") not in got, got


def test_them_is_never_the_one_person_of_the_title(ex):
    """"Her violas were made for children, and several orchestras bought sets of them": not sets of Petra Sollis."""
    got = triples(ex, "Petra Sollis\nPetra Sollis was a viola maker. Her short-necked violas were made for children, "
                      "and several orchestras bought sets of them for their youth sections.")
    assert not [t for t in got if t[1].startswith("bought") and t[2] == "Petra Sollis"], got


def test_a_title_word_opening_a_longer_of_name_stays_in_it(ex):
    """"the Keldmoor School of Crafts" in the passage "Keldmoor" is one node, no "School of Crafts" beside it."""
    got = triples(ex, "Keldmoor\nKeldmoor is a market town. The society also runs the Keldmoor School of Crafts, "
                      "which teaches carpentry.")
    assert "Keldmoor School of Crafts" in nodes(got), got
    assert "School of Crafts" not in nodes(got), got


def test_quotes_are_no_part_of_a_node_name(ex):
    """'the "Grey Lark" violin' is the node Grey Lark violin, no stray quote in it."""
    got = triples(ex, "Orvane Violin Workshop\nThe workshop's most famous instrument is the \"Grey Lark\" violin, "
                      "finished in 1902.")
    assert not [n for n in nodes(got) if '"' in n], got


def test_a_name_after_in_her_memory_is_the_objects(ex):
    """"created an award in her memory, the Orvane Medal": the society created the medal, not "created in" it."""
    got = triples(ex, "Tamsin Orvane\nTamsin Orvane was a luthier. In 1931 the Keldmoor music society created an award "
                      "in her memory, the Orvane Medal, for young instrument makers.")
    assert ("Keldmoor music society", "created", "Orvane Medal") in got, got
    assert not [t for t in got if t[1] == "created in" and t[2] == "Orvane Medal"], got


def test_it_and_its_never_stand_for_a_person(ex):
    """In the passage "Corwin Abernel", "its founder" and "bought it" are the workshop, never the title's person: no
    `Tamsin Orvane · founder of · Corwin Abernel` nor `Halvet Instruments · bought · Corwin Abernel`."""
    got = triples(ex, "Corwin Abernel\nCorwin Abernel (1878 - 1949) was a luthier who ran the Orvane Violin Workshop "
                      "in Keldmoor from 1921 until 1949. He was the nephew of its founder, Tamsin Orvane, and was born "
                      "in the town of Saltmarch. After his death the workshop was run by a board of trustees until "
                      "Halvet Instruments bought it in 1958.")
    assert ("Corwin Abernel", "nephew of", "Tamsin Orvane") in got, got
    assert not [t for t in got if t[2] == "Corwin Abernel" and t[1] in ("founder of", "bought")], got
    assert ("Corwin Abernel", "bought in", "1958") not in got, got


def test_a_compass_point_or_described_place_is_no_place_beside_a_named_one(ex):
    """"born in the village of Trevennac, in the hill country east of Sarnebourg": born in Trevennac only, not "born
    in · east" nor "born in · hill country"."""
    got = triples(ex, "Odile Verlaque\nOdile Verlaque (1859 – 1923) was a perfumer. She was born in the village of "
                      "Trevennac, in the hill country east of Sarnebourg, where her father kept a small distillery.")
    assert ("Odile Verlaque", "born in", "Trevennac") in got, got
    assert not {"east", "hill country"} & nodes(got), got


def test_a_part_called_a_name_is_that_name_not_the_title(ex):
    """"The glasshouse of the gardens, called the Crystal Orangery, was designed by X": the orangery was designed, not
    the passage's gardens (audit 43 read "Quillon Gardens · designed by · Frida Omlund")."""
    got = triples(ex, "Quillon Gardens\nThe Quillon Gardens are a botanical garden. The glasshouse of the gardens, "
                      "called the Crystal Orangery, was designed by the architect Frida Omlund and opened in 1911.")
    assert ("Crystal Orangery", "designed by", "Frida Omlund") in got, got
    assert ("Quillon Gardens", "designed by", "Frida Omlund") not in got, got


def test_a_possessed_role_noun_with_a_name_after_it_is_the_name(ex):
    """"created by the guild's first president, Casimir Duvelle": created by Casimir Duvelle, no bare role node
    "first president · is · Casimir Duvelle"."""
    got = triples(ex, "Golden Censer Prize\nThe Golden Censer Prize is an award for perfumers. It was created in 1905 "
                      "by the guild's first president, Casimir Duvelle.")
    assert ("Golden Censer Prize", "created by", "Casimir Duvelle") in got, got
    assert "first president" not in nodes(got), got


def test_a_bare_house_word_is_the_one_house_the_passage_names(ex):
    """"at the Atelier" is the Verlaque Atelier; a bare "Verlaque" beside "Maison Verlaque" and "Verlaque Atelier" is
    no node; "opened a school for perfumers, the Verlaque Atelier" opened the atelier (audit 43)."""
    got = triples(ex, "Ilse Brandeck\nIlse Brandeck (1921 – 2004) was a perfumer. In 1958 she became the first "
                      "director of the Verlaque Atelier, the school for perfumers of Maison Verlaque. Together they "
                      "designed the bottles of several Verlaque fragrances. Ilse Brandeck taught more than two hundred "
                      "students at the Atelier.")
    assert ("Ilse Brandeck", "taught students at", "Verlaque Atelier") in got, got
    assert not {"Atelier", "Verlaque"} & nodes(got), got
    got = triples(ex, "Maison Verlaque\nMaison Verlaque is a perfume house founded in 1887. Maison Verlaque later "
                      "opened a school for perfumers, the Verlaque Atelier, whose first director was Ilse Brandeck.")
    assert ("Maison Verlaque", "opened", "Verlaque Atelier") in got, got


def test_his_after_a_persons_possessive_is_that_person(ex):
    """"After Aurel Quillon's death in 1934, the gardens were run by his nephew Benedikt Sorrel": Aurel Quillon's
    nephew, not the perfume house named in the sentence before (audit 43's corpus read "nephew of · Maison Verlaque")."""
    got = triples(ex, "Quillon Gardens\nThe Quillon Gardens are a botanical garden. In 1902 the gardens signed a "
                      "contract to supply lavender to Maison Verlaque, a perfume house founded by Aurel Quillon's wife. "
                      "After Aurel Quillon's death in 1934, the gardens were run by his nephew Benedikt Sorrel.")
    assert ("Benedikt Sorrel", "nephew of", "Aurel Quillon") in got, got


def test_it_after_the_titles_sentence_is_the_title_not_its_object(ex):
    """"Nordal Line sponsors the Golden Censer Prize since 1970. Today it runs twenty-six ships": the shipping group
    runs the ships, not the prize it sponsors (audit 43's corpus read "Golden Censer Prize · runs · twenty-six ships")."""
    got = triples(ex, "Nordal Line\nNordal Line is a shipping group based in Kestrava. Nordal Line sponsors the Golden "
                      "Censer Prize since 1970. Today it runs twenty-six ships and employs about three thousand people.")
    assert ("Nordal Line", "runs", "twenty-six ships") in got, got
    assert not [t for t in got if t[0] == "Golden Censer Prize" and t[1] in ("runs", "employs")], got


def test_a_surname_is_the_full_name_the_model_tagged_org_when_a_given_name_starts_it(ex):
    """Audit 46: the small model tags "Tomasz Vellaric" ORG; a European given name ("Tomasz", not in the US lists)
    still makes it a person's full name, so "Vellaric built …" is his, not a node "Vellaric"."""
    from core.text import named_person

    assert all(named_person(n) for n in ("Tomasz Vellaric", "Henrike Solms", "Benedikt Harrowgate", "Aurel Quillon"))
    assert not any(named_person(n) for n in ("Vigo Harbour", "My Best Friend", "Marine Biological Laboratory"))
    got = triples(ex, "Brennick Clockworks\nBrennick Clockworks is a maker of tower clocks and carriage clocks based in "
                      "the town of Ulvasted. The workshop was founded in 1871 by Tomasz Vellaric, a watch repairer who "
                      "had trained in the city of Garnholm. Vellaric built the first tower clock of Ulvasted's market "
                      "hall in 1874, and the clock still strikes the hours today.")
    assert ("Tomasz Vellaric", "built", "first tower clock") in got, got
    assert "Vellaric" not in nodes(got), got
    got = triples(ex, "Sunnyside\nSunnyside is a house near Tarrytown that Washington Irving bought in 1835. Irving "
                      "later travelled to Washington, where he met the president.")
    assert "Washington Irving" in nodes(got) and "Washington" in nodes(got), got  # a place is never his first name


def test_a_surname_the_model_tagged_a_place_is_the_person_title_when_it_is_a_subject(ex):
    """Audit 47: in "Halvard Quenby" the small model tags each later "Quenby" GPE, which left a node "Quenby" with
    the projectionist's job and the move; a person-titled passage's surname that is a clause's subject is the title.
    A place of that name that is no subject ("moved to Corland") stays a place."""
    got = triples(ex, "Halvard Quenby\nHalvard Quenby (1889–1958) was a film director and the founder of Orvane "
                      "Pictures. He was born in the village of Dunmere Cross, the son of a schoolteacher.\n\nQuenby "
                      "worked as a projectionist in Tesselford before moving to Marrowick in 1919. He directed "
                      "forty-one films. Quenby never married, and his diaries, kept from 1912 until his death, are "
                      "held by the Tesselford Municipal Archive.")
    assert ("Halvard Quenby", "worked as projectionist in", "Tesselford") in got, got
    assert ("Halvard Quenby", "moving to", "Marrowick") in got, got
    assert "Quenby" not in nodes(got), got
    got = triples(ex, "Anna Corland\nAnna Corland was a painter. In 1920 she moved to Corland, a town on the coast, "
                      "where she painted harbours.")
    assert not [t for t in got if t[2] == "Anna Corland" and t[1] != "mentions"], got
    # MuSiQue: a place's title is no person's ("Steel industry in China … China was the largest producer")
    got = triples(ex, "Steel industry in China\nIn 2011 China was the largest producer of steel in the world producing 45% "
                      "of the world's steel, 683 million tons, an increase of 9% from 2010. 6 of 10 of largest steel "
                      "producers in the world are in China. Profits are low despite continued high demand due to high debt "
                      "and overproduction of high end products produced with the equipment financed by the high debt. The "
                      "central government is aware of this problem but there is no easy way to resolve it as local "
                      "governments strongly support local steel production. Meanwhile, each firm aggressively increases "
                      "production. Iron ore production kept pace with steel production in the early 1990s but was soon "
                      "outpaced by imported iron ore and other metals in the early 2000s. Steel production, an estimated "
                      "140 million tons in 2000 increased to 419 million tons in 2006. Much of the country's steel output "
                      "comes from a large number of small - scale producing centers, one of the largest being Anshan in "
                      "Liaoning.")
    assert ("China", "was", "largest producer") in got, got


def test_a_bare_family_word_before_ownership_or_name_is_the_one_firm_it_names(ex):
    """Audit 47: "Under Keswin ownership the studio made …" left a node "Keswin" beside the firm "Keswin Brothers
    Distribution" and the persons "Edmund Keswin", "Rosamund Keswin"; a bare word that only qualifies "ownership",
    "name", "family" … is the one firm the passage names with it, else no node."""
    got = triples(ex, "Orvane Pictures\nOrvane Pictures is a film studio founded in 1921 by the director Halvard "
                      "Quenby. In 1952 Orvane Pictures was bought by the distribution company Keswin Brothers "
                      "Distribution, which moved the studio's archive to Tesselford. Under Keswin ownership the studio "
                      "made mostly documentaries.")
    assert ("Orvane Pictures", "bought by", "Keswin Brothers Distribution") in got, got
    assert "Keswin" not in nodes(got), got
    got = triples(ex, "Tarrow Mill\nTarrow Mill was a weaving mill in Lessing. Its founders were Anselm Pellan and "
                      "Ruth Pellan, who sold it in 1950. Later owners kept the Pellan name on the sailcloth they made.")
    assert "Pellan" not in nodes(got), got
    # MuSiQue: a family word the passage names nothing else with is the family's only node, named with its family
    # word since v45 (audit 51: "the sale to the Dunmore family" gave a bare "Dunmore")
    got = triples(ex, "Maryland Toleration Act\nThe Maryland Toleration Act was a law passed in 1649. The Calvert "
                      "family sought enactment of the law to protect Catholic settlers.")
    assert ("Maryland Toleration Act", "mentions", "Calvert family") in got, got


def test_a_bare_first_word_is_a_trading_house_and_a_person_named_in_full_before_it(ex):
    # audit 48: "… sold to the Ashgrove Trading House. Ashgrove kept the Verrow name …" gave a node "Ashgrove" ("house"
    # is no firm head alone), and "her nephew Dorran Calloran took over. Under Dorran …" a node "Dorran" ("Dorran" is
    # in no given-name list)
    got = triples(ex, "Verrow Leaf Company\nThe Verrow Leaf Company is a tea blending firm based in Quellhaven. In 1951 "
                      "the company was sold to the Ashgrove Trading House. Ashgrove kept the Verrow name but moved the "
                      "blending room to a new site in the town of Fenlow.")
    assert "Ashgrove" not in nodes(got), got
    assert ("Ashgrove Trading House", "kept", "Verrow name") in got, got
    got = triples(ex, "Calloran Group\nThe Calloran Group is a holding company based in the city of Brenhallow. Hester "
                      "Calloran led the group until 1990, when her nephew Dorran Calloran took over. Under Dorran the "
                      "group sold the rope works but kept the tea business.")
    assert "Dorran" not in nodes(got), got
    assert ("Calloran Group", "sold under", "Dorran Calloran") in got, got
