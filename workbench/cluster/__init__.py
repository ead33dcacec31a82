"""Rows on a Ray cluster (`[cluster] engine = "ray"`, or `--cluster ADDRESS`): the same iterations,
with each row's target run on the cluster's workers instead of this machine.

Only the running of targets moves (`ray_runner.RayRunner`, chosen by `runners.make_runner`); loading,
scoring, history, reports and write-back stay in this process. Nothing here imports Ray until a
cluster is used, so the core install doesn't need it; the connection (`connection.py`: threads, asyncio, the
stray finder) is imported only when the config uses a cluster, or its names are asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..runners.concurrency import concurrency_of

if TYPE_CHECKING:
    from ..config import Config
    from .connection import ClusterStatus


def uses_cluster(config: Config) -> bool:
    return config.cluster.engine == "ray"


def check_cluster(config: Config) -> None:
    """Before anything runs: a configured cluster needs Ray installed (ClusterError saying how)."""
    if uses_cluster(config):
        from .connection import require_ray

        require_ray()


async def rows_in_flight(config: Config) -> int:
    """How many rows an iteration runs at once: [runner] concurrency here; on a cluster, [cluster]
    max_in_flight or as many as its CPUs hold. Connects first, so an unreachable cluster stops the
    iteration (ClusterError naming the address) before any row runs."""
    if not uses_cluster(config):
        return concurrency_of(config)  # [runner] concurrency, or the default for the target's kind
    from .connection import connect, in_background, in_flight_limit

    status = await in_background(connect, config)
    return in_flight_limit(status, config.cluster)


def cluster_status(config: Config) -> ClusterStatus | None:
    """What the status line shows about the cluster while `config` uses one (None otherwise, or
    before the first iteration has connected)."""
    if not uses_cluster(config):
        return None
    from .connection import current_status

    return current_status()


def __getattr__(name: str) -> Any:
    """`INSTALL_HINT`, `ClusterError` and `ClusterStatus`, from `connection.py` when first asked for."""
    if name in ("INSTALL_HINT", "ClusterError", "ClusterStatus"):
        from . import connection

        return getattr(connection, name)
    raise AttributeError(name)


__all__ = ["INSTALL_HINT", "ClusterError", "ClusterStatus", "check_cluster", "cluster_status", "rows_in_flight",
           "uses_cluster"]
