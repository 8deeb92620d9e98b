"""Several processes syncing the recall index of one store at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from contextward.recall import RecallIndex, RecallQuery, recall
from contextward.store import Store

SCRIPT = """
import sys
from pathlib import Path
from contextward.recall import RecallQuery, recall
from contextward.store import Store
with Store.open(Path(sys.argv[1])) as store:
    for n in range(10):
        store.journal.add("note", f"parallel entry {sys.argv[2]} {n}")
        recall(store, RecallQuery("parallel"))
"""


def test_parallel_writers_and_syncs_index_every_row_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    Store.open(tmp_path).close()
    procs = [
        subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path), str(n)]) for n in range(4)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    with Store.open(tmp_path) as store:
        index = RecallIndex(store)
        index.sync()
        assert index.count() == 40
        seqs = [
            int(r[0]) for r in store.query("SELECT seq FROM recall_docs WHERE source = 'journal'")
        ]
        assert sorted(seqs) == list(range(1, 41))
        result = recall(store, RecallQuery("parallel entry 3", limit=20))
        assert len(result.hits) == 10
