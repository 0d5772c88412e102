"""The irregular forms of common English verbs and the nouns of a verb's event, for the question-verb rule.

None of the papers defines the extractive answer (each assumes an LLM), so this table is ours. The question-verb rule
(:mod:`core.methods.question_verb`) compares the question's verb with a sentence's words by their first five letters,
which meets a regular verb's inflections ("founded" → "found") but not an irregular one's ("In what year did the ferry
built by Oskar Brede sink?": "It sank off Kellby Point in 1911." holds no "sink"), nor the noun a sentence names the
event by ("When did the founder of X die?": "Her death in 1951 closed the looms."). :func:`base_verb` reads such a
word as its verb first.

Why a table and not a lemmatizer: the shared spaCy pipeline runs without its lemmatizer, and a second load is not
wanted. The pinned model does carry the rule lemmatizer's lookup tables (``lemmatizer/lookups/lookups.bin``), but
they need each word's part of speech (sentences are not tagged here), they read ambiguous forms one way for every
use ("found" → "find" though "founded" is the verb these passages use, "saw" → "see", "rose" → "rise"), they name no
event noun ("death", "birth"), and they are the model's files, read by :mod:`core.backends.spacy_model` alone. So
this is an explicit list: the common irregular verbs, with forms that are also everyday words of another meaning left
out ("found", "ground", "wound", "bound", "lay", "bore", "rose", "strung"), and the event nouns whose first five
letters miss their verb ("death", "birth", "sale", "loss", "closure"; "marriage" for the question "marry", whose
first five letters it met already).
"""

from __future__ import annotations

#: Each group: the verb, then its irregular forms (past, participle; "-ing" where its spelling changes the stem).
_IRREGULAR = """
arise arose arisen; awake awoke awoken; beat beaten; become became; begin began begun; bend bent; bite bit bitten;
bleed bled; blow blew blown; break broke broken; breed bred; bring brought; build built; burn burnt; buy bought;
catch caught; choose chose chosen; cling clung; come came; creep crept; deal dealt; dig dug; draw drew drawn;
dream dreamt; drink drank drunk; drive drove driven; eat ate eaten; fall fell fallen; feed fed; feel felt;
fight fought; flee fled; fly flew flown; forbid forbade forbidden; foresee foresaw foreseen; forget forgot forgotten;
forgive forgave forgiven; freeze froze frozen; get got gotten; give gave given; go went gone; grow grew grown;
hang hung; hear heard; hide hid hidden; hold held; keep kept; kneel knelt; know knew known; lead led; leap leapt;
learn learnt; leave left; lend lent; light lit; lose lost; make made; mean meant; meet met;
mislead misled; mistake mistook mistaken; oversee oversaw overseen; overtake overtook overtaken; pay paid;
rebuild rebuilt; ride rode ridden; ring rang rung; rise risen; run ran; say said; see saw seen; seek sought;
sell sold; send sent; sew sewn; shake shook shaken; shine shone; shoot shot; show shown; sing sang sung;
sink sank sunk; sit sat; slay slew slain; sleep slept; slide slid; speak spoke spoken; speed sped; spend spent;
spin spun; stand stood; steal stole stolen; stick stuck; sting stung; stride strode stridden; strike struck;
strive strove striven; swear swore sworn; sweep swept; swim swam swum; swing swung; take took taken; teach taught;
tear tore torn; tell told; think thought; throw threw thrown; tread trod trodden; undertake undertook undertaken;
understand understood; uphold upheld; wake woke woken; wear wore worn; weave wove woven; weep wept; win won;
withdraw withdrew withdrawn; withhold withheld; write wrote written; rewrite rewrote rewritten; die dying
"""

#: Nouns naming a verb's event whose first five letters miss the verb's: "her death in 1951" says when she died.
#: "birth" (and "birthplace") reads as "born", the form a question asks by ("When was the founder of X born?").
_EVENT_NOUNS = """
die death deaths; born birth births birthplace; marry marriage marriages; sell sale sales; lose loss; close closure;
enter entry; serve service; invade invasion; collide collision; grow growth
"""


def _forms(groups: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for group in groups.split(";"):
        base, *forms = group.split()
        out.update((f, base) for f in forms)
    return out


#: Each irregular form or event noun → its verb ("sold" → "sell", "death" → "die").
BASE_VERBS: dict[str, str] = {**_forms(_IRREGULAR), **_forms(_EVENT_NOUNS)}


def base_verb(word: str) -> str:
    """``word`` case-folded, as its verb where it is one of the irregular forms or event nouns above (the module
    docstring); any other word as it is.

    >>> [base_verb(w) for w in ("Sold", "bought", "death", "birth", "founded", "found")]
    ['sell', 'buy', 'die', 'born', 'founded', 'found']
    """
    w = word.casefold()
    return BASE_VERBS.get(w, w)
