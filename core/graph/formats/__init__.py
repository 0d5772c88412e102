"""Every input a user can upload, one module per format family (DESIGN.md "Data").

Each ``read_*`` function adds what it reads to a :class:`~core.graph.graph_builder.GraphBuilder` and
returns the non-fatal warnings (e.g. LLM noise skipped in an OpenIE file). A malformed input raises
one :class:`~core.errors.InputFormatError` naming the file, the line or record, what is wrong and
what was expected. :func:`core.graph.formats.load.load_inputs` detects the format of each path and
returns one merged graph.

Supported inputs
----------------
* triples: CSV / TSV (header optional; columns head, relation, tail and an optional source chunk
  column), JSON (list of objects or of ``[h, r, t]`` lists), JSONL
* GraphML (node attribute ``name``/``label``, edge attribute ``relation``/``label``)
* documents: PDF (its text layer), HTML (the visible text), Word ``.docx``, Markdown, plain text (one
  document each, chunked; one that cannot be read is left out of a load of several files, with a warning)
* a text corpus as JSON / JSONL ``{title, text}`` passages
* HippoRAG: a corpus JSON plus its OpenIE results file (``docs[].extracted_triples``)
* a corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}`` + edges CSV ``source,target``
* a named KG folder (UMLS / FB15k-237 style): id-form triples plus ``entity2text`` / ``relation2text``
* an ``egx`` graph export (JSON written by :meth:`KnowledgeGraph.to_dict`)

Any of these may be gzip-compressed (``.gz``).

Modules
-------
================  ====================================================================================
``load``          :func:`load_inputs`, :class:`LoadedGraph`: detect, order, read, merge
``registry``      format name -> :class:`Format` (reader, load rank, extensions); detection; how to add one
``sniff``         telling formats apart by content where they share an extension
``triples``       CSV / TSV / JSON / JSONL triples
``graphml``       GraphML
``corpus``        JSON / JSONL passages
``documents``     PDF / HTML / DOCX / Markdown / text documents as passages (bounded: pages, zip members)
``markup``        the reading text of HTML and Markdown
``openie``        HippoRAG OpenIE results
``corpus_graph``  a corpus graph's nodes and edges
``named_kg``      a named KG folder
``bounds``        :class:`InputLimits`, :func:`open_input` (size and decompression bounds), file naming
``textio``        decoding text and lines (UTF-8 / UTF-16, NUL bytes, line length)
``jsonio``        JSON and JSON Lines with clean errors
``delimited``     CSV / TSV rows
``records``       checks on a record before it enters the graph (names, triples)
================  ====================================================================================
"""
