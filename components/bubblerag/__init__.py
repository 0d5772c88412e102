"""BubbleRAG's UI (BubbleRAG §3): what its four pages share (:mod:`.shared`: the question box, the cached run,
group colours, drawings) and one module of panels per page (:mod:`.anchors`, :mod:`.expansion`,
:mod:`.ranking`, :mod:`.ask`)."""
