"""A named KG folder (UMLS / FB15k-237 layouts): id-form triples plus ``entity2text`` / ``relation2text``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name, resolve_limits
from core.graph.formats.delimited import csv_rows
from core.graph.formats.textio import iter_lines
from core.graph.graph_builder import BadNameError, GraphBuilder


def read_named_kg(folder: Path, builder: GraphBuilder, *, splits: Sequence[str] = ("train", "dev", "test"),
                  limits: InputLimits | None = None) -> list[str]:
    """A KG folder with id-form triples and readable names (UMLS / FB15k-237 layouts).

    * ``entity2text.txt`` (or ``kgbert_entity2text.txt``): ``id<TAB>name``
    * ``relation2text.txt`` (optional): ``relation<TAB>readable phrase``
    * triples per split: ``<split>.tsv`` / ``kgbert_<split>.tsv`` (``h<TAB>r<TAB>t``) or OpenKE
      ``openke_<split>2id.txt`` (first line a count, then ``h_id t_id r_id``) with
      ``openke_entity2id.txt`` / ``openke_relation2id.txt``.

    The union of the splits found is the KG (a retrieval KG has no held-out edges). Entities keep
    their ids, so two Freebase entities that share a name stay apart.
    """
    folder = Path(folder)
    lim = resolve_limits(limits)
    ent_file = _first_existing(folder, ("entity2text.txt", "kgbert_entity2text.txt"))
    if ent_file is None:
        raise InputFormatError(str(folder), "no entity2text.txt in this folder",
                               "a named-KG folder with entity2text.txt (id<TAB>name) and triples")
    names = _read_two_col(ent_file, lim)
    rel_file = _first_existing(folder, ("relation2text.txt", "kgbert_relation2text.txt"))
    rels = _read_two_col(rel_file, lim) if rel_file else {}
    triples: list[tuple[str, str, str, Path, int]] = []
    found = []
    for split in splits:
        tsv = _first_existing(folder, (f"{split}.tsv", f"kgbert_{split}.tsv"))
        oke = folder / f"openke_{'valid' if split == 'dev' else split}2id.txt"
        if tsv is not None:
            found.append(tsv.name)
            for line, row in csv_rows(tsv, iter_lines(tsv, lim), "\t"):
                if len(row) != 3:
                    raise InputFormatError(display_name(tsv), f"found {len(row)} columns",
                                           "head<TAB>relation<TAB>tail", line=line)
                triples.append((row[0], row[1], row[2], tsv, line))
        elif oke.exists():
            found.append(oke.name)
            ent_ids = {v: k for k, v in _read_two_col(folder / "openke_entity2id.txt", lim, skip_count=True).items()}
            rel_ids = {v: k for k, v in _read_two_col(folder / "openke_relation2id.txt", lim, skip_count=True).items()}
            for i, ln in iter_lines(oke, lim):
                if i == 1:
                    continue
                parts = ln.split()
                if not parts:
                    continue
                if len(parts) != 3 or parts[0] not in ent_ids or parts[1] not in ent_ids or parts[2] not in rel_ids:
                    raise InputFormatError(display_name(oke), f"bad OpenKE triple {ln!r}",
                                           "head_id tail_id relation_id (ids from entity2id/relation2id)", line=i)
                triples.append((ent_ids[parts[0]], rel_ids[parts[2]], ent_ids[parts[1]], oke, i))
    if not found:
        raise InputFormatError(str(folder), "no triple files",
                               "train.tsv / dev.tsv / test.tsv, kgbert_<split>.tsv or openke_<split>2id.txt")
    for h, r, t, src, line in triples:
        for e in (h, t):
            if not builder.has_node(e):
                if e not in names:
                    raise InputFormatError(display_name(src), f"entity {e!r} has no name in {ent_file.name}",
                                           "every entity listed in entity2text", line=line)
                try:
                    builder.add_node(names[e], node_id=e)
                except BadNameError as exc:
                    raise InputFormatError(ent_file.name, f"entity {e!r}: {exc.problem}", exc.expected) from None
        try:
            builder.add_edge(h, rels.get(r, r.replace("_", " ")), t)
        except BadNameError as exc:
            raise InputFormatError(display_name(src), exc.problem, exc.expected, line=line) from None
    return []


def _first_existing(folder: Path, names: Sequence[str]) -> Path | None:
    for n in names:
        if (folder / n).exists():
            return folder / n
    return None


def _read_two_col(path: Path, lim: InputLimits, *, skip_count: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, ln in iter_lines(path, lim):
        if skip_count and i == 1:
            continue
        if not ln.strip():
            continue
        parts = ln.rstrip("\r\n").split("\t")
        if len(parts) < 2:
            raise InputFormatError(display_name(path), "found 1 column", "id<TAB>text", line=i)
        if len(parts[1]) > lim.max_name_chars:
            raise InputFormatError(display_name(path), f"the name is {len(parts[1]):,} characters long",
                                   f"names of at most {lim.max_name_chars:,} characters", line=i)
        out[parts[0].strip()] = parts[1].strip()
    return out
