"""The default thread count on a shared machine: `system.CoreShare` counts the
cores other processes keep busy, and a model at the default threads runs on the
rest (bench/shared_host.py measures it under a real competing load)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import lamina
from lamina import system
from lamina.tools.demo import mlp_model


class FakeMachine:
    """/proc/stat's busy time, this process's CPU time and the clock, by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cpus: int) -> None:
        self.now = 100.0
        self.busy = 0.0
        self.own = 0.0
        monkeypatch.setattr(system, "_cpus", lambda: set(range(cpus)))
        monkeypatch.setattr(system, "_busy_seconds", lambda _cpus, _hz: self.busy)
        monkeypatch.setattr(system, "_own_seconds", lambda: self.own)
        monkeypatch.setattr(system.time, "monotonic", lambda: self.now)

    def advance(self, seconds: float, others: float, own: float) -> None:
        """`seconds` pass, with others keeping `others` cores busy and this
        process `own`."""
        self.now += seconds
        self.busy += seconds * (others + own)
        self.own += seconds * own


@pytest.mark.parametrize(
    ("cpus", "others", "limit", "expected"),
    [
        (2, 0.0, 2, 2),  # quiet
        (2, 0.3, 2, 2),  # a core counts as taken when others keep over half of it busy
        (2, 0.9, 2, 1),
        (2, 2.0, 2, 1),  # never fewer than one
        (8, 3.2, 8, 5),
        (8, 3.2, 4, 4),  # never more than asked for
    ],
)
def test_threads_leave_the_cores_others_keep_busy(monkeypatch, cpus, others, limit, expected):
    machine = FakeMachine(monkeypatch, cpus)
    share = system.CoreShare()
    assert share.threads(limit) == limit  # nothing measured yet: every core
    machine.advance(0.5, others=others, own=1.0)  # our own busy time is not others' load
    assert share.threads(limit) == expected
    assert share.others == pytest.approx(others)


def test_measured_at_most_once_per_period(monkeypatch):
    machine = FakeMachine(monkeypatch, 2)
    share = system.CoreShare()
    share.threads(2)
    machine.advance(share.PERIOD / 2, others=1.0, own=0.0)
    assert share.threads(2) == 2  # too soon to measure again
    machine.advance(share.PERIOD, others=1.0, own=0.0)
    assert share.threads(2) == 1
    machine.advance(share.PERIOD, others=0.0, own=1.0)
    assert share.threads(2) == 2  # the load went away: every core again


def test_one_note_when_oversubscribed(monkeypatch, caplog):
    machine = FakeMachine(monkeypatch, 2)
    share = system.CoreShare()
    share.threads(2)
    with caplog.at_level(logging.WARNING, logger="lamina"):
        for _ in range(3):
            machine.advance(1.0, others=1.0, own=1.0)
            assert share.threads(2) == 1
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 1
    assert "1.0 of this process's 2 cores busy" in notes[0] and "LAMINA_NUM_THREADS" in notes[0]


def test_unreadable_proc_stat_keeps_every_core(monkeypatch):
    monkeypatch.setattr(system, "_busy_seconds", lambda _cpus, _hz: None)
    share = system.CoreShare()
    assert share.threads(4) == 4
    assert share.threads(4) == 4


def test_real_proc_stat_reads():
    cpus = system._cpus()
    if cpus is None or system._busy_seconds(cpus, 100) is None:
        pytest.skip("no /proc/stat or CPU affinity here")
    assert system._busy_seconds(cpus, 100) >= 0
    assert 1 <= system.CoreShare().threads(len(cpus)) <= len(cpus)


def test_only_the_default_thread_count_adapts(monkeypatch):
    model = mlp_model((16, 8, 4))
    monkeypatch.delenv("LAMINA_NUM_THREADS", raising=False)
    default = lamina.compile(model)
    assert default.adaptive_threads and default.num_threads == system.default_threads()
    assert not lamina.compile(model, num_threads=2).adaptive_threads
    default.num_threads = 1  # set by hand: fixed from now on
    assert not default.adaptive_threads
    monkeypatch.setenv("LAMINA_NUM_THREADS", "2")
    assert not lamina.compile(model).adaptive_threads
    monkeypatch.setenv("LAMINA_NUM_THREADS", "many")  # not a count: the default, adapting
    assert lamina.compile(model).adaptive_threads


def test_a_loaded_machine_runs_the_default_model_on_the_free_cores(monkeypatch):
    """The team size each run asks the thread pool for follows the share."""
    monkeypatch.delenv("LAMINA_NUM_THREADS", raising=False)
    exe = lamina.compile(mlp_model((16, 8, 4)))
    exe.num_threads, exe.adaptive_threads = 2, True
    asked: list[int] = []
    monkeypatch.setattr("lamina.runtime.model.set_num_threads", lambda n, _pool: asked.append(n))
    monkeypatch.setattr(system.CORE_SHARE, "threads", lambda limit: 1)
    x = np.ones((1, 16), np.float32)
    exe.run(x)
    exe.adaptive_threads = False
    exe.run(x)
    assert asked == [1, 2]
