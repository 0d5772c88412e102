"""Round 64, the residue rounds 62–63 left, by class rather than wording: a person the small model tags ORG (or NORP,
or nothing) that the text shows to be one; a role noun with a name in apposition is an edge; "He succeeded her" is the
"he"; a subject that is not the title; a plural pronoun object with no node to take is no edge."""

from __future__ import annotations

from core.backends.base import with_previous
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def _after(ex, previous: str, passage: str) -> set[tuple[str, str, str]]:
    """The triples of ``passage`` read after the passage ``previous`` of the same document."""
    return {(t.head, t.relation, t.tail) for t in ex.extract([with_previous(passage, previous)])[0]}


# -- 1. a person the small model tags ORG ---------------------------------------------------------------------------
def test_a_name_tagged_org_is_a_person_where_the_text_says_so(ex):
    got = triples(ex, "Mirela Palemont\nMirela Palemont was born in Kestrow in 1876, the daughter of the theatre owner "
                      "Idris Palemont. She grew up among the painted figures of the Orlan Marionette Company.")
    assert ("Mirela Palemont", "daughter of", "Idris Palemont") in got, got
    got = _after(ex, "The new workshop stood beside the fish market, and the players lodged above a chandlery owned by "
                     "Hester Moyle.",
                 "Orlan Marionette Company\nAfter the death of Idris Palemont in 1909, the direction of the company "
                 "passed to his daughter Mirela Palemont, who ran it until 1938.")
    assert ("Mirela Palemont", "daughter of", "Idris Palemont") in got, got
    assert ("Mirela Palemont", "daughter of", "Hester Moyle") not in got, got


def test_a_shared_surname_with_a_person_makes_a_person(ex):
    for text, kin, owner, wrong in (
            ("Ostby Bakery\nThe bakery was opened in 1880 by Idris Palemont. His nephew Karl Palemont took it over in "
             "1910.", ("Karl Palemont", "nephew of"), "Idris Palemont", "Ostby Bakery"),
            ("Harrow Forge\nAfter the death of Edda Dask in 1902, the forge passed to her son Corwin Dask.",
             ("Corwin Dask", "son of"), "Edda Dask", "Harrow Forge"),
            ("Kestrow Bridge\nThe bridge was built by the mason Osric Penhale in 1860. His grandson Tobin Penhale "
             "repaired it in 1920.", ("Tobin Penhale", "grandson of"), "Osric Penhale", "Kestrow Bridge")):
        got = triples(ex, text)
        assert (*kin, owner) in got, got
        assert (*kin, wrong) not in got, got


def test_himself_beside_a_name_makes_a_person(ex):
    for text, kin, owner in (
            ("Ashgrove School\nThe school was founded in 1850. Idris Palemont himself taught there until 1870. His "
             "daughter Ada Brask ran it after 1870.", ("Ada Brask", "daughter of"), "Idris Palemont"),
            ("Dunmere Choir\nThe choir was founded in 1890. Orrin Tallis himself wrote its hymns. His niece Ada Brell "
             "sang in it.", ("Ada Brell", "niece of"), "Orrin Tallis"),
            ("Wick Museum\nThe museum was opened in 1902. Idris Kestle herself chose its first paintings. Her son Tom "
             "Varro painted the sign.", ("Tom Varro", "son of"), "Idris Kestle")):
        got = triples(ex, text)
        assert (*kin, owner) in got, got
        assert not any(h == kin[0] and r == kin[1] and t != owner for h, r, t in got), got


# -- 2. a role noun with its name set off by commas is an edge --------------------------------------------------------
def test_the_role_of_the_named_works_set_off_name_is_an_edge(ex):
    for text, name, role, owner in (
            ("Tobias Wrenfield\nAs a boy Wrenfield was apprenticed at the Hallam Toy Works in Ashgrove, where he painted "
             "tin soldiers before he was allowed to carve. The foreman of the works, Silas Brand, taught him to sharpen "
             "chisels and to read the grain of the wood.", "Silas Brand", "foreman of", "Hallam Toy Works"),
            ("Wick Glassworks\nWick Glassworks is a glassworks in Wick. The manager of the glassworks, Tom Reed, hired "
             "twelve blowers in 1901.", "Tom Reed", "manager of", "Wick Glassworks"),
            ("Karl Voss\nKarl Voss worked at the Tarn Glassworks in Wick. The owner of the glassworks, Anna Brede, "
             "hired him in 1880.", "Anna Brede", "owner of", "Tarn Glassworks")):
        got = triples(ex, text)
        assert (name, role, owner) in got, got


def test_the_role_of_unnamed_works_is_no_edge(ex):
    got = triples(ex, "Karl Voss\nKarl Voss was a carver. The foreman of the works, Silas Brand, taught him to carve.")
    assert ("Silas Brand", "taught", "Karl Voss") in got, got
    assert not any(r == "foreman of" for _, r, _ in got), got


def test_an_owned_role_or_kin_noun_set_off_name_is_an_edge(ex):
    for text, name, role, owner in (
            ("Harbour Notes\nThe director of the Dunmere museum, Ysolde Marren, bought the papers of Anselm Greaves in "
             "1990. Marren's assistant, Piet Olley, catalogued them.", "Piet Olley", "assistant of", "Ysolde Marren"),
            ("Lena Holm\nLena Holm was a singer. Holm's teacher, Paul Wren, took her to Vienna in 1901.", "Paul Wren",
             "teacher of", "Lena Holm"),
            ("Ostby Library\nThe library opened in 1901. Its first librarian, Ada Lamb, bought the maps.", "Ada Lamb",
             "librarian of", "Ostby Library"),
            ("Rudolf Marr\nRudolf Marr was a sailor. He married Ida Kolt in 1890. Her son, Paul Marr, became a baker.",
             "Paul Marr", "son of", "Ida Kolt")):
        got = triples(ex, text)
        assert (name, role, owner) in got, got
        assert not any(h == name and r == role and t != owner for h, r, t in got), got


# -- 3. "He succeeded her": the two pronouns are two people, the person title one of them -----------------------------
def test_a_pronoun_pair_after_an_ungendered_subject_is_no_edge_either_way(ex):
    for text, verb, title, other in (
            ("Tobin Ashgrove\nTobin Ashgrove was an astronomer. Ismene Vartan ran the observatory in 1890. He succeeded "
             "her as director in 1902.", "succeeded", "Tobin Ashgrove", "Ismene Vartan"),
            ("Lena Hart\nLena Hart was a singer. Karl Moss ran a club in Wick. She joined him in 1901.", "joined",
             "Lena Hart", "Karl Moss"),
            ("Mara Lind\nMara Lind was a potter. Olaf Brenn owned a kiln in Wick. She bought it from him in 1899.",
             "bought from", "Mara Lind", "Olaf Brenn"),
            # the same shape the other way round: only the names' genders tell, so no edge rather than a wrong one
            ("Anna Brook\nAnna Brook was a pianist. Paul Wren ran a school in Vienna. He taught her from 1890.",
             "taught", "Paul Wren", "Anna Brook")):
        got = triples(ex, text)
        assert (other, verb, title) not in got, got  # base: the sentence before's subject, the wrong way round here


def test_the_audits_he_succeeded_her_reads_past_a_he_of_the_passage_before(ex):
    got = _after(ex, "Tobin Ashgrove (1861–1933) was an astronomer and the second director of the Kelvary Observatory. "
                     "He was born in Brisa Hollow, the son of a quarryman, and worked as a boy in the Penrose slate "
                     "quarry.",
                 "Tobin Ashgrove\nIsmene Vartan took him on as an assistant in 1880, after he wrote to her about a comet "
                 "he had seen. He studied at night and became her deputy in 1891. He succeeded her as director in 1902.")
    assert ("Tobin Ashgrove", "succeeded", "Ismene Vartan") in got, got
    assert ("Ismene Vartan", "succeeded", "Tobin Ashgrove") not in got, got


def test_a_pronoun_pair_after_the_title_was_called_the_other_pronoun_is_the_subject_before(ex):
    got = triples(ex, "Anna Brook\nAnna Brook was a pianist. Her teacher was Paul Wren. He gave her lessons in Vienna. "
                      "She married him in 1901.")
    assert ("Paul Wren", "teacher of", "Anna Brook") in got, got
    assert ("Anna Brook", "married", "Paul Wren") in got, got
    got = triples(ex, "Karl Vint\nKarl Vint was a sailor. His captain, Ida Roe, trusted him. She promoted him in 1890.")
    assert ("Ida Roe", "promoted", "Karl Vint") in got, got
    assert ("Karl Vint", "promoted", "Ida Roe") not in got, got


# -- 4. subjects that are not the title -------------------------------------------------------------------------------
def test_a_body_noun_subject_in_a_towns_passage_is_not_the_town(ex):
    for text, title, verb in (
            ("Dunmere\nDunmere is a harbour town. Under her direction the company opened a puppet school in Dunmere in "
             "1921. In 1930 a new museum opened in 1930.", "Dunmere", "opened"),
            ("Wick\nWick is a market town on the river Tarn. In 1890 the society built a reading room in Wick.", "Wick",
             "built"),
            ("Ostby\nOstby is a fishing village. The firm opened a cannery there in 1901.", "Ostby", "opened")):
        got = triples(ex, text)
        assert not any(h == title and r.startswith(verb) for h, r, _ in got), got


def test_and_of_a_noun_with_a_participle_is_the_first_ofs_sibling(ex):
    for text, place, relation, first, second, verb, year in (
            ("Ostby\nOstby is the home of the Ostby Choir, which moved here from Wick, and of a small museum opened in "
             "1932.", "Ostby", "home of", "Ostby Choir", "small museum", "opened in", "1932"),
            ("Tarn\nTarn is the home of the Tarn Band, which moved here from Ostby, and of a small school built in "
             "1890.", "Tarn", "home of", "Tarn Band", "small school", "built in", "1890"),
            ("Brell\nBrell is the seat of the Vell Company, which came here from Wick, and of a new library opened in "
             "1911.", "Brell", "seat of", "Vell Company", "new library", "opened in", "1911")):
        got = triples(ex, text)
        assert (place, relation, second) in got, got
        assert (second, verb, year) in got, got
        assert not any(h == first and t in (second, year) for h, _, t in got), got


def test_a_bare_part_of_a_title_given_a_kind_is_its_own_node(ex):
    for text, title, part, relation, agent in (
            ("Kelvary Observatory\nKelvary Observatory is an astronomical observatory near Calmouth. It was founded in "
             "1871. The dome was designed by Osric Penhale.", "Kelvary Observatory", "dome", "designed by",
             "Osric Penhale"),
            ("Saint Brell's Church\nSaint Brell's Church is a parish church in Wick. It was built in 1420. The tower was "
             "designed by Osric Penhale in 1870.", "Saint Brell's Church", "tower", "designed by", "Osric Penhale"),
            ("Harlow Hall\nHarlow Hall is a country house near Ostby. The roof was rebuilt by Tom Pike in 1901.",
             "Harlow Hall", "roof", "rebuilt by", "Tom Pike")):
        got = triples(ex, text)
        assert (f"{part} of {title}", relation, agent) in got, got
        assert (title, relation, agent) not in got, got
    got = triples(ex, "Calmouth Museum\nCalmouth Museum is a museum in Calmouth. The building was designed by Ada Fenn "
                      "in 1890.")
    assert ("Calmouth Museum", "designed by", "Ada Fenn") in got, got


# -- 5. a plural pronoun object with no node to take is no edge, never the title --------------------------------------
def test_them_after_a_plural_object_with_no_node_is_no_edge(ex):
    for text, title, person, verb in (
            ("Harbour Notes\nThe director of the Dunmere museum, Ysolde Marren, bought the papers of Anselm Greaves in "
             "1990. Marren's assistant, Piet Olley, catalogued them.", "Harbour Notes", "Piet Olley", "catalogued"),
            ("Ostby Library\nThe library bought the letters of Karl Voss in 1950. Ada Lamb sorted them.",
             "Ostby Library", "Ada Lamb", "sorted"),
            ("Wick Museum\nThe museum acquired the drawings of Tom Pike in 1920. Ada Lamb framed them in 1921.",
             "Wick Museum", "Ada Lamb", "framed"),
            ("Brask Archive\nThe archive received the ledgers of the Brask Mill in 1950. Karl Voss sorted them.",
             "Brask Archive", "Karl Voss", "sorted")):
        got = triples(ex, text)
        assert (person, verb, title) not in got, got


def test_them_after_a_plural_object_with_a_node_is_that_node(ex):
    got = triples(ex, "Ostby Library\nThe library received forty old maps in 1901. Ada Lamb restored them.")
    assert ("Ada Lamb", "restored", "forty old maps") in got, got


def test_a_towns_own_council_and_a_persons_tower_are_read_as_before(ex):
    got = triples(ex, "Kestrow\nKestrow is a market town. The council built a bridge in 1890.")
    assert ("Kestrow", "built in", "1890") in got, got  # the town's own council: the town, as before
    got = triples(ex, "Tom Pike\nTom Pike was a mason in Wick. The tower was built in 1890 by Ada Fenn.")
    assert not any(h == "tower of Tom Pike" for h, _, _ in got), got  # a part of a thing, never of a person
