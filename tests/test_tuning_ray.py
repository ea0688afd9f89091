"""The Ray runner: a local Ray cluster started by the test measures a tuning
run, and its records are the local runner's (same tasks, same candidates under
a seeded random search, same statuses, this CPU), up to the times measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lamina.tuning import CpuKey, RayRunner, load_records, read_records, tune
from tests.test_tuning import _model

ray = pytest.importorskip("ray")


def _key(records_path: Path) -> list[tuple[str, str, bool, str]]:
    records, notes = read_records(records_path)
    assert notes == []
    return [(r.workload, json.dumps(r.knobs, sort_keys=True), r.default, r.status) for r in records]


def test_a_local_ray_cluster_measures_what_the_local_runner_does(tmp_path: Path) -> None:
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    tune(_model(), local, trials=5, batch=4, search="random", seed=3, workers=1)
    runner = RayRunner(None, workers=2, timeout=60, num_cpus=2, object_store_memory=80 * 2**20)
    try:
        assert ray.is_initialized() and runner.parallelism == 2
        tune(_model(), remote, trials=5, batch=4, search="random", seed=3, runner=runner)
    finally:
        runner.close()
    assert not ray.is_initialized()  # the runner started the cluster: it stopped it
    assert _key(remote) == _key(local)
    records = load_records(remote)
    assert all(r.ok and r.target == CpuKey.host() for r in records.records)
    best = records.best()
    assert set(best) == set(load_records(local).best())
