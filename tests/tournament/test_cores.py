"""A table on a Dask worker claims a core no other table on the machine holds (arena/tournament/cores.py)."""

import contextlib
import os
import threading

import pytest

from arena.submission.workspace import CACHE_ENV
from arena.tournament.cores import claimed_core

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this platform")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))


def test_tables_claim_different_cores_and_none_when_all_are_taken():
    cores = sorted(os.sched_getaffinity(0))
    with contextlib.ExitStack() as tables:
        claimed = [tables.enter_context(claimed_core()) for _ in cores]
        assert sorted(claimed) == cores  # each table its own core
        with claimed_core() as extra:
            assert extra is None  # more tables than cores: unpinned, not refused
    with claimed_core() as again:
        assert again == cores[0]  # released on exit


def test_the_threads_own_affinity_is_put_back():
    before = os.sched_getaffinity(0)
    with claimed_core() as cpu:
        os.sched_setaffinity(0, {cpu})  # what open_table does with it
    assert os.sched_getaffinity(0) == before


def test_threads_of_one_process_do_not_share_a_core():
    # Dask runs tasks in threads: two tables in one worker process must not get the same core.
    got, release = [], threading.Event()
    entered = threading.Barrier(3)

    def table():
        with claimed_core() as cpu:
            got.append(cpu)
            entered.wait()
            release.wait()

    threads = [threading.Thread(target=table) for _ in range(2)]
    for thread in threads:
        thread.start()
    entered.wait()
    release.set()
    for thread in threads:
        thread.join()
    real = [cpu for cpu in got if cpu is not None]
    assert len(real) == len(set(real)) == min(2, len(os.sched_getaffinity(0)))

