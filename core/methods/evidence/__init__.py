"""Evidence code every method's answer step shares, so no paper package imports another.

==============  ==================================================================================
module          what
==============  ==================================================================================
``chains``      ReG §4.2 / D.4 structure-aware reorganization: triples → evidence chains
``formats``     ReG §4.2 the answer's evidence in three formats (passages, triples, chains), token counts
``linking``     query and answer entities linked to KG nodes (ReG's topic entities, for a black-box KG)
``prompts``     ReG App. F evidence-based QA prompts (triples / chains)
==============  ==================================================================================

BubbleRAG's ``evidence_format`` option, the passage methods' evidence (Dense, Re2, PPR, FastInsight) and
ReG's own answer step all read these; the paper packages import from here, never from each other.
"""
