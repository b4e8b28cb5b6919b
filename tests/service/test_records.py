"""Game record files: written by a thread off the event loop, nothing lost on a clean shutdown."""

from __future__ import annotations

import json
import logging
import threading

from referee.service.records import RecordWriter


def test_every_queued_record_is_written_by_close(tmp_path):
    loop_thread = threading.get_ident()
    threads = set()

    def render(i: int):
        def text() -> str:
            threads.add(threading.get_ident())
            return json.dumps({"game": i})
        return text

    w = RecordWriter(str(tmp_path), max_queued=16)   # smaller than the burst: submit waits for room, loses nothing
    for i in range(500):
        w.submit(f"g{i}", render(i))
    w.close()
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 500 and w.written == 500 and w.failed == 0
    assert all(json.loads((tmp_path / f"g{i}.json").read_text()) == {"game": i} for i in range(500))
    assert not list(tmp_path.glob("*.tmp"))
    assert threads and loop_thread not in threads     # rendered and written on the writer thread


def test_a_failed_write_is_logged_with_the_file_and_what_to_do_and_the_rest_go_on(tmp_path, caplog):
    missing = tmp_path / "gone"
    w = RecordWriter(str(missing))
    with caplog.at_level(logging.ERROR, logger="referee"):
        w.submit("g1", lambda: "{}")
        w.close()
    assert w.failed == 1 and w.written == 0
    msg = caplog.text
    assert str(missing / "g1.json") in msg and "--record-dir" in msg and "writable" in msg
    w2 = RecordWriter(str(tmp_path))
    w2.submit("bad", lambda: 1 / 0)      # a render error is one lost record, not a dead writer
    w2.submit("good", lambda: "{}")
    w2.close()
    assert (tmp_path / "good.json").exists() and w2.failed == 1
