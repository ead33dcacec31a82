"""Issue 24, failing rows first on a Ray cluster: with one row in flight, the rows that did not pass last
time reach the target first on the local Ray too, for every runner kind (tasks for command/uip, actors for
python/worker); the results keep file order. One local Ray for the module, in the "ray" xdist group like
the other Ray tests; skipped where Ray is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.ordering import RUNNERS, config_of, order, project, run_and_record

from workbench.cluster.connection import connect, disconnect
from workbench.config import Config, Overrides

pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    config = Config(root=Path.cwd())
    config.cluster.engine, config.cluster.address, config.cluster.max_in_flight = "ray", "local", 2
    yield connect(config)
    disconnect()


def on_cluster(config: Config) -> Config:
    config.overrides = Overrides(cluster="local")
    config.overrides.apply(config)
    config.cluster.max_in_flight = 1  # one row at a time: the order the target sees is the queue's
    return config


@pytest.mark.parametrize("kind", list(RUNNERS))
def test_failing_rows_start_first_on_the_cluster(tmp_path: Path, kind: str) -> None:
    root, log = project(tmp_path, kind, failing={"c"})
    config = on_cluster(config_of(root, kind))
    first = run_and_record(config)
    assert order(log) == ["a", "b", "c", "d"]
    assert [r.row_id for r in first.results if not r.passed] == ["c"]
    second = run_and_record(config)
    assert order(log) == ["c", "a", "b", "d"]
    assert [r.row_id for r in second.results] == ["a", "b", "c", "d"]
