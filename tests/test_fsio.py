"""core/fsio.py: atomic writes, locks, the atomic folder swap and the names a user may choose."""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import time
from pathlib import Path

import pytest

from core.errors import NameNotAllowedError
from core.fsio import (
    MAX_NAME_CHARS,
    atomic_path,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    child_path,
    clean_filename,
    exchange,
    path_lock,
    safe_name,
    temp_sibling,
)


def test_atomic_writes_replace_and_leave_no_temporary_files(tmp_path):
    p = tmp_path / "sub" / "f.json"
    atomic_write_json(p, {"a": 1})
    atomic_write_text(p, "two")
    assert p.read_text() == "two"
    atomic_write_bytes(p, b"\x00three")
    assert p.read_bytes() == b"\x00three"
    assert sorted(x.name for x in p.parent.iterdir()) == ["f.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("old")
    with pytest.raises(RuntimeError, match="writer died"), atomic_path(p) as tmp:
        tmp.write_text("half")
        raise RuntimeError("writer died")
    assert p.read_text() == "old"
    assert [x.name for x in tmp_path.iterdir()] == ["f.txt"]


def test_temp_names_are_unique_across_threads_of_one_process(tmp_path):
    names: list[str] = []

    def grab() -> None:
        names.extend(temp_sibling(tmp_path / "x").name for _ in range(50))

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(names)) == 400
    assert all(re.fullmatch(rf"\.x\.tmp-{os.getpid()}-\d+-[0-9a-f]{{10}}", n) for n in names)


def test_threads_writing_one_file_at_once_never_tear_it(tmp_path):
    """Eight threads rewrite one JSON file; every read sees a complete document (the old code's
    PID-only temporary name made threads write into one shared temporary file)."""
    p = tmp_path / "shared.json"
    atomic_write_json(p, {"writer": -1, "pad": "x" * 10000})
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(i: int) -> None:
        try:
            for _ in range(30):
                atomic_write_json(p, {"writer": i, "pad": "x" * 10000})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        while not stop.is_set():
            json.loads(p.read_text())

    r = threading.Thread(target=reader)
    r.start()
    ws = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in ws:
        t.start()
    for t in ws:
        t.join()
    stop.set()
    r.join()
    assert errors == []
    assert [x.name for x in tmp_path.iterdir()] == ["shared.json"]


def test_path_lock_excludes_threads_and_is_reentrant(tmp_path):
    from filelock import Timeout

    target = tmp_path / "ws"
    inside: list[int] = []
    overlap: list[bool] = []

    def work(i: int) -> None:
        with path_lock(target), path_lock(target):  # re-entrant in one thread
            inside.append(i)
            overlap.append(len(inside) > 1)
            time.sleep(0.05)
            inside.remove(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlap == [False] * 4
    with path_lock(target):
        failed: list[bool] = []

        def try_now() -> None:
            try:
                path_lock(target).acquire(timeout=0)
            except Timeout:
                failed.append(True)

        t = threading.Thread(target=try_now)
        t.start()
        t.join()
        assert failed == [True]
    assert (tmp_path / ".ws.lock").exists()


def test_exchange_swaps_two_folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("from a")
    (b / "y").write_text("from b")
    if not exchange(a, b):
        pytest.skip("this file system cannot exchange folders atomically")
    assert (a / "y").read_text() == "from b" and (b / "x").read_text() == "from a"


@pytest.mark.parametrize(("name", "problem"), [
    ("", "it is empty"),
    ("   ", "it is empty"),
    ("..", "it names a folder above or the folder itself"),
    (".", "it names a folder above or the folder itself"),
    ("../etc", "it contains a path separator"),
    ("/tmp/x", "it contains a path separator"),
    ("a\\b", "it contains a path separator"),
    (".hidden", "it starts with '.'"),
    ("-rf", "it starts with '-'"),
    ("a\x00b", "it contains a control character"),
    ("x" * (MAX_NAME_CHARS + 1), f"it is {MAX_NAME_CHARS + 1} characters long (at most {MAX_NAME_CHARS})"),
    ("CON", "it is a reserved device name"),
    ("nul.txt", "it is a reserved device name"),
    ("my run", "it contains ' '"),
    ("run*", "it contains '*'"),
])
def test_safe_name_rejects_with_the_reason_and_the_rule(name, problem):
    with pytest.raises(NameNotAllowedError, match=re.escape(problem) + r".*Use 1-64 letters, digits, '-', '_' or '\.'"):
        safe_name(name, kind="run name")


def test_safe_name_accepts_ordinary_names_and_child_path_stays_inside(tmp_path):
    for ok in ("musique", "run-1", "a.b_c", "X" * MAX_NAME_CHARS):
        assert safe_name(ok) == ok
    assert child_path(tmp_path, "run-1") == tmp_path / "run-1"
    with pytest.raises(NameNotAllowedError, match=r"The run name '\.\./x' is not allowed: it contains a path separator"):
        child_path(tmp_path, "../x", kind="run name")
    (tmp_path / "escape").symlink_to("/etc")  # a link planted inside the root
    with pytest.raises(NameNotAllowedError, match="does not stay inside"):
        child_path(tmp_path, "escape")


@pytest.mark.parametrize(("raw", "clean"), [
    ("triples.csv", "triples.csv"),
    ("../../etc/passwd.csv", "passwd.csv"),
    ("C:\\Users\\me\\t.csv.gz", "t.csv.gz"),
    ("..", "upload"),
    ("", "upload"),
    ("my file (1).json", "my-file-1-.json"),
    ("nul.csv", "upload-nul.csv"),
    (".bashrc", "bashrc"),
])
def test_clean_filename(raw, clean):
    assert clean_filename(raw) == clean


@pytest.mark.parametrize(("raw", "clean"), [
    ("Brennick Clockworks.txt", "Brennick Clockworks.txt"),  # audit 46: titled "Brennick-Clockworks" before
    ("Müller  Werke.md", "Müller Werke.md"),
    ("../x y.txt", "x y.txt"),
    (" .hidden file.txt", "hidden file.txt"),
    ("a\u202eb .txt", "a-b.txt"),  # no bidi control, no space before the suffix
    ("con .txt", "upload-con.txt"),
])
def test_an_uploads_name_keeps_its_spaces_and_letters(raw, clean):
    assert clean_filename(raw, spaces=True) == clean


def test_clean_filename_keeps_the_suffixes_of_a_long_name():
    out = clean_filename("x" * 300 + ".jsonl.gz")
    assert len(out) <= 100 and out.endswith(".jsonl.gz")


def test_a_cache_write_renames_without_fsync(tmp_path, monkeypatch):
    """``durable=False`` (per-entry caches): still atomic, no fsync; the default fsyncs file and folder."""
    from core import fsio

    calls = []
    monkeypatch.setattr(fsio.os, "fsync", lambda fd: calls.append(fd))
    fsio.atomic_write_text(tmp_path / "c.json", '{"v": 2}', durable=False)
    assert (tmp_path / "c.json").read_text() == '{"v": 2}' and calls == []
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]  # no temporary file left
    fsio.atomic_write_text(tmp_path / "d.json", "{}")
    assert len(calls) == 2  # the file, then its folder


def test_lock_files_of_gone_paths_are_removed_and_held_ones_kept(tmp_path):
    """The filelock package leaves `.NAME.lock` behind, one per workspace ever made; a sweep removes those whose
    path is gone, never one that is held, nor one whose path exists."""
    from core.fsio import lock_file, path_lock, remove_stale_locks

    (tmp_path / "alive").mkdir()
    for name in ("alive", "gone", "held"):
        with path_lock(tmp_path / name):
            pass
    held, release = threading.Event(), threading.Event()

    def hold() -> None:  # another thread, as a build holding its workspace's lock before the folder exists
        with path_lock(tmp_path / "held"):
            held.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(30)
    try:
        assert remove_stale_locks(tmp_path) == [".gone.lock"]
    finally:
        release.set()
        t.join(30)
    with path_lock(tmp_path / "held"):  # held by this very thread (re-entrant): in use too
        assert remove_stale_locks(tmp_path) == []
    assert lock_file(tmp_path / "alive").exists() and lock_file(tmp_path / "held").exists()
    assert not lock_file(tmp_path / "gone").exists()
    assert remove_stale_locks(tmp_path / "missing") == []


# ------------------------------------------------------------------------------------ outputs a user names
def test_an_atomic_write_never_renames_over_a_symlink_a_fifo_or_a_device(tmp_path):
    from core.errors import OutputPathError

    target = tmp_path / "precious"
    target.write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for p in (link, fifo, Path("/dev/null")):
        with pytest.raises(OutputPathError, match=re.escape(f"{p} is a ")):
            atomic_write_text(p, "x")
    assert link.is_symlink() and target.read_text() == "keep" and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["fifo", "link", "precious"]  # no temporary left


def test_write_output_text_refuses_dev_full_and_writes_a_new_file_in_new_folders(tmp_path):
    from core.errors import OutputPathError
    from core.outputs import write_output_text

    with pytest.raises(OutputPathError, match=r"^--out /dev/full is a character device; "):
        write_output_text("/dev/full", "x", flag="--out")
    p = write_output_text(tmp_path / "a" / "b" / "t.json", "{}", flag="--out")
    assert p.read_text() == "{}"
    with pytest.raises(OutputPathError, match=r"is a folder; give a file name, e.g. --out .*/a/out\.json\.$"):
        write_output_text(tmp_path / "a", "x", flag="--out")
    (tmp_path / "f").write_text("file")
    with pytest.raises(OutputPathError, match=r"/f is a file, not a folder; pick another path\.$"):
        write_output_text(tmp_path / "f" / "t.json", "x")


def test_output_folder_is_created_marked_and_taken_again(tmp_path):
    from core.outputs import OUTPUT_MARKER, is_output_folder, output_folder

    out = output_folder(tmp_path / "runs" / "one", what="benchmark folder")
    assert is_output_folder(out) and json.loads((out / OUTPUT_MARKER).read_text())["format"] == "egx-output"
    (out / "results.jsonl").write_text("{}\n")
    assert output_folder(out) == out  # marked: taken again, whatever it holds
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".results.jsonl.lock").write_text("")  # a lock file holds no data
    assert is_output_folder(output_folder(empty))


def test_output_folder_refuses_a_folder_of_someone_elses_files_unless_it_is_ours(tmp_path):
    from core.errors import OutputPathError
    from core.outputs import OUTPUT_MARKER, check_output_folder, output_folder

    home = tmp_path / "home"
    home.mkdir()
    for i in range(5):
        (home / f"f{i}.txt").write_text("mine")
    with pytest.raises(OutputPathError, match=re.escape(f"The output folder {home} is not empty and egx did not "
                                                        "make it (it holds 'f0.txt', 'f1.txt', 'f2.txt' and 2 "
                                                        "more and no .egx-output)")):
        output_folder(home)
    assert sorted(os.listdir(home)) == [f"f{i}.txt" for i in range(5)]
    old = tmp_path / "old"
    old.mkdir()
    (old / "run.json").write_text("{}")
    assert check_output_folder(old, ours=lambda p: (p / "run.json").exists()) == old
    assert not (old / OUTPUT_MARKER).exists()  # the check creates nothing
    output_folder(old, ours=lambda p: (p / "run.json").exists())
    assert (old / OUTPUT_MARKER).exists()
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "data.csv").write_text("x")
    (planted / OUTPUT_MARKER).symlink_to(tmp_path / "old" / OUTPUT_MARKER)  # a link is no marker
    with pytest.raises(OutputPathError, match="is not empty and egx did not make it"):
        output_folder(planted)


def test_open_append_does_not_follow_a_planted_symlink(tmp_path):
    from core.errors import OutputPathError
    from core.outputs import open_append

    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "results.jsonl").symlink_to(victim)
    with pytest.raises(OutputPathError, match="is a symbolic link"):
        open_append(tmp_path / "results.jsonl")
    assert victim.read_text() == "keep\n"
    with open_append(tmp_path / "new.jsonl") as fh:
        fh.write("a\n")
    assert (tmp_path / "new.jsonl").read_text() == "a\n"


# ------------------------------------------------------------------------------------ files read as data
def test_read_data_file_refuses_a_link_to_dev_zero_without_reading_it(tmp_path):
    from core.errors import DataFileError
    from core.fsio import read_data_file

    link = tmp_path / "model.safetensors"
    link.symlink_to("/dev/zero")
    with pytest.raises(DataFileError, match=re.escape(f"The weights file {link} is a character device, not a "
                                                      "regular file; it was not read.")):
        read_data_file(link, max_bytes=2**30, what="weights file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a reader that opened it would wait for a writer forever
    with pytest.raises(DataFileError, match="is a named pipe"):
        read_data_file(fifo, max_bytes=10)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(DataFileError, match=re.escape(f"The file {big} is 11 bytes, more than any file can be (10)")):
        read_data_file(big, max_bytes=10)
    assert read_data_file(big, max_bytes=11) == b"x" * 11
