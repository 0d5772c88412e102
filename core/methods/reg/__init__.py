"""ReG: weak-to-strong graph RAG (reg_weak_to_strong_graphrag.txt §4, Appendices D–F).

====================  ========================================================================
module                paper
====================  ========================================================================
``candidates``        §4.1, D.1 candidate pool (shortest paths + query-/answer-centric 1-hop)
``compression``       §4.1, D.2 answer merging + relation-chain merging (Table 1 ratio)
``selection``         §4.1, D.3 / App. F LLM selection of the sufficient, coherent subset
``supervision``       weak vs refined labels per question (D.1–D.3 end to end)
``dde``               App. E / SubgraphRAG directional distance encoding
``retriever``         D.3 Eq. 33 ReG@Triple MLP scorer (saved per workspace with a manifest)
``entity_retriever``  D.3 Eq. 34 / App. E ReG@Entity: PNA entity scorer, entity→triple scores, parallel merge
``train``             App. E training loop with held-out splits and curves
``train_entity``      App. E ReG@Entity training on the same split, examples and metrics
``models``            which trained retriever a run uses, its identity and the questions it was trained on
``pipeline``          the ``reg`` method: score the neighbourhood, keep top-K, reorganize, answer
``config``            RegConfig (the method's knobs) and TrainConfig (ReG@Triple training)
``diagnosis``         where a question's gold evidence was lost
====================  ========================================================================

ReG's structure-aware reorganization (§4.2, D.4), its evidence formats and the entity linking are
shared by every method's answer step, so they live beside the methods, not in this package:

==================================  ============================================================
``core.methods.evidence.chains``    §4.2, D.4 reorganization (BFS chain expansion, both merges)
``core.methods.evidence.formats``   §4.2 evidence format for every method's answer (triples vs chains)
``core.methods.evidence.linking``   topic/answer entities for a black-box KG (given in ReG's datasets)
``core.methods.evidence.prompts``   App. F evidence-based QA prompts (Fig. 7 style)
``core.backends.tokens``            prompt token counts (the answering model's tokenizer, or WordPiece)
==================================  ============================================================

``import core.methods.reg`` stays light: torch is imported inside the retriever functions.
"""

from __future__ import annotations

from core.methods.base import Artifacts, Method
from core.methods.evidence.chains import EvidenceChain, Reorganization, Triple, reorganize
from core.methods.reg.ablations import ABLATIONS
from core.methods.reg.config import RegConfig, TrainConfig, reg_budget
from core.methods.reg.diagnosis import STAGES, diagnose
from core.methods.reg.intros import INTROS
from core.methods.reg.models import pin, stamp, trained_on
from core.methods.reg.pipeline import RegResult, run
from core.methods.reg.training_jobs import TRAIN_REG

__all__ = ["METHOD", "EvidenceChain", "RegConfig", "RegResult", "Reorganization", "TrainConfig", "Triple", "reorganize",
           "run"]

METHOD: Method[RegConfig, RegResult] = Method(
    "reg", "ReG triple retriever + evidence chains", "ReG §4, Appendix D", run=run, config=RegConfig, stages=STAGES,
    diagnose=diagnose, page="pages/evidence_chains.py",
    ablations=ABLATIONS, intros=INTROS, stamp=stamp, trained_on=trained_on, pin=pin, budget=reg_budget,
    tasks=(TRAIN_REG,),
    artifacts=Artifacts("reg", "ReG's trained retriever (installed or kept aside) and selections (train it again "
                               "in the Train panel of the Evidence chains page, or with egx train-reg)",
                        stamp_files=("retriever/manifest.json", "retriever-entity/manifest.json")))
