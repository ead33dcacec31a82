"""Rows on a Ray cluster (`[cluster] engine = "ray"`, or `--cluster ADDRESS`): the same iterations,
with each row's target run on the cluster's workers instead of this machine.

Only the running of targets moves (`ray_runner.RayRunner`, chosen by `runners.make_runner`); loading,
scoring, history, reports and write-back stay in this process. Nothing here imports Ray until a
cluster is used, so the core install doesn't need it.
"""

from __future__ import annotations

from ..config import Config
from ..runners.concurrency import concurrency_of
from .connection import (
    INSTALL_HINT,
    ClusterError,
    ClusterStatus,
    connect,
    current_status,
    in_background,
    in_flight_limit,
    require_ray,
)


def uses_cluster(config: Config) -> bool:
    return config.cluster.engine == "ray"


def check_cluster(config: Config) -> None:
    """Before anything runs: a configured cluster needs Ray installed (ClusterError saying how)."""
    if uses_cluster(config):
        require_ray()


async def rows_in_flight(config: Config) -> int:
    """How many rows an iteration runs at once: [runner] concurrency here; on a cluster, [cluster]
    max_in_flight or as many as its CPUs hold. Connects first, so an unreachable cluster stops the
    iteration (ClusterError naming the address) before any row runs."""
    if not uses_cluster(config):
        return concurrency_of(config)  # [runner] concurrency, or the default for the target's kind
    status = await in_background(connect, config)
    return in_flight_limit(status, config.cluster)


def cluster_status(config: Config) -> ClusterStatus | None:
    """What the status line shows about the cluster while `config` uses one (None otherwise, or
    before the first iteration has connected)."""
    return current_status() if uses_cluster(config) else None


__all__ = ["INSTALL_HINT", "ClusterError", "ClusterStatus", "check_cluster", "cluster_status", "rows_in_flight",
           "uses_cluster"]
