"""The one Ray connection a workbench process holds, made on demand and kept for every iteration.

Ray's connection is process-wide (`ray.init` once), so this is too: the first iteration that needs the
cluster connects, later ones reuse it, and a different address (the settings file was edited) drops the
old connection first. `ray` is imported only here and only when a cluster is used; without it the
user is told how to install it. An unreachable address fails in seconds with the address in the
message, instead of Ray's own minute of retries.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import faulthandler
import logging
import math
import queue
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..config import ClusterConfig, Config, ConfigError

INSTALL_HINT = "pip install 'workbench[ray]'"
LOCAL, AUTO = "local", "auto"
DEFAULT_CLIENT_PORT = 10001  # ray://head  (Ray Client)
DEFAULT_GCS_PORT = 6379  # head:port   (a driver on a cluster node)
PROBE_TIMEOUT_S = 5.0
# A reachable head still gets a bound: a local Ray starts in about 10 s on a loaded 2-core machine.
CONNECT_TIMEOUT_S = 120.0


class ClusterError(ConfigError):
    """The cluster can't be used (Ray missing, address unreachable); the message says what to do."""


@dataclass(slots=True)
class ClusterStatus:
    """What the status line shows while rows run on the cluster: where, and how busy we keep it."""

    address: str
    cpus: float  # the cluster's CPUs when workbench connected
    rows_running: int = 0
    row_cpus: float = 0.0  # what the rows in flight ask for (a task's CPUs, or the actor's it runs on)
    actor_cpus: float = 0.0  # what live actors hold, busy or not

    @property
    def cpus_in_use(self) -> float:
        """CPUs this workbench holds on the cluster: its rows', or its actors' when they hold more."""
        return max(self.row_cpus, self.actor_cpus)

    def describe(self) -> str:
        return f"Ray {self.address} · {self.cpus_in_use:g}/{self.cpus:g} CPUs in use"

    @contextlib.contextmanager
    def row(self, cpus: float) -> Iterator[None]:
        """Count a row as in flight for as long as the block lasts."""
        self.rows_running += 1
        self.row_cpus += cpus
        try:
            yield
        finally:
            self.rows_running -= 1
            self.row_cpus = max(0.0, self.row_cpus - cpus)


def require_ray() -> ModuleType:
    """The `ray` module, or a ClusterError saying how to install it (never an ImportError traceback)."""
    try:
        import ray
    except ImportError as exc:
        python = sys.executable or "this Python"
        raise ClusterError(f"[cluster] engine = \"ray\" needs Ray, which is not installed for {python} ({exc}); "
                           f"install it with: {INSTALL_HINT}") from None
    return ray


def address_of(cluster: ClusterConfig) -> str:
    return cluster.address or AUTO


def in_flight_limit(status: ClusterStatus, cluster: ClusterConfig) -> int:
    """[cluster] max_in_flight, or as many rows as the cluster's CPUs hold at `cpus_per_row` each."""
    if cluster.max_in_flight is not None:
        return cluster.max_in_flight
    return max(1, int(status.cpus // cluster.cpus_per_row))


class _RayThread:
    """Runs `ray.init`/`ray.shutdown` on one thread that lives as long as the process. A local Ray's
    processes get a parent-death signal, which Linux sends when the *thread* that started them ends:
    started from a short-lived thread, the local cluster would die with it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="workbench-ray", daemon=True)
                self._thread.start()
        self._jobs.put((job, future))
        return future

    def _serve(self) -> None:
        while True:
            job, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as exc:  # handed to the caller, who turns it into a message
                future.set_exception(exc)


_THREAD = _RayThread()
_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"address": None, "status": None}


def current_status() -> ClusterStatus | None:
    """The connected cluster's status, or None while no cluster is connected."""
    return _STATE["status"]


def connect(config: Config) -> ClusterStatus:
    """Connect to the configured cluster (or start the local one), reusing the connection already
    made to the same address. Blocking; raises ClusterError naming the address when it can't."""
    ray = require_ray()
    address = address_of(config.cluster)
    with _LOCK:
        status: ClusterStatus | None = _STATE["status"]
        if status is not None and _STATE["address"] == address and ray.is_initialized():
            return status
        _STATE["status"] = None
        probe(ray, address)
        future = _THREAD.submit(lambda: _init(ray, address, config.cluster))
        try:
            status = future.result(timeout=CONNECT_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            raise ClusterError(f"the Ray cluster at {address} did not accept a connection within "
                               f"{CONNECT_TIMEOUT_S:g}s") from None
        except ClusterError:
            raise
        except Exception as exc:
            raise ClusterError(connect_failure(address, exc)) from None
        _STATE.update(address=address, status=status)
        if address == LOCAL and not _STATE.get("stops_at_exit"):
            # Stopped by Ray's own exit hook alone, a local Ray sometimes leaves two of its helper
            # processes running after an interrupted run; this hook runs first and stops it cleanly.
            atexit.register(disconnect)
            _STATE["stops_at_exit"] = True
        return status


def connect_failure(address: str, exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "ray[client]" in text:
        return f"cannot connect to the Ray cluster at {address}: Ray Client is not installed; {INSTALL_HINT}"
    hint = " (no Ray cluster is running here; start one with `ray start --head`, or use address = \"local\")" \
        if address == AUTO else ""
    return f"cannot connect to the Ray cluster at {address}: {text}{hint}"


def _init(ray: ModuleType, address: str, cluster: ClusterConfig) -> ClusterStatus:
    if ray.is_initialized():
        ray.shutdown()
    if not faulthandler.is_enabled() and sys.__stderr__ is not None:
        # Ray turns this on with sys.stderr, which the TUI replaces with a stand-in whose fileno() is -1:
        # ray.init would fail there. Crash dumps go to the real stderr instead.
        with contextlib.suppress(ValueError, OSError):
            faulthandler.enable(file=sys.__stderr__, all_threads=False)
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR, "namespace": "workbench"}
    if address == LOCAL:
        cpus = math.ceil(cluster.max_in_flight * cluster.cpus_per_row) if cluster.max_in_flight else None
        ray.init(num_cpus=cpus, include_dashboard=False, **options)
    else:
        ray.init(address=address, **options)
    return ClusterStatus(address, float(ray.cluster_resources().get("CPU", 0.0)))


def endpoint(ray: ModuleType, address: str) -> tuple[str, int] | None:
    """(host, port) a connection to `address` goes to, or None when there is nothing to probe
    (`local`, or `auto` with no cluster recorded on this machine: Ray says so at once)."""
    if address == LOCAL:
        return None
    if address == AUTO:
        with contextlib.suppress(Exception):  # Ray's own lookup of the cluster started on this machine
            from ray._private import services

            found = services.canonicalize_bootstrap_address(AUTO)
            return endpoint(ray, found) if found else None
        return None
    rest, default = address, DEFAULT_GCS_PORT
    if rest.startswith("ray://"):
        rest, default = rest[len("ray://"):], DEFAULT_CLIENT_PORT
    rest = rest.split("/", 1)[0]
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit() or host.endswith(":"):  # no port, or an IPv6 address without one
        host, port = rest, str(default)
    return host.strip("[]"), int(port)


def probe(ray: ModuleType, address: str) -> None:
    """Fail in seconds when nothing listens at `address`; Ray itself would retry for a minute or more."""
    target = endpoint(ray, address)
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=PROBE_TIMEOUT_S).close()
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        port = f"{target[0]}:{target[1]}"
        where = address if port in address else f"{address} ({port})"
        raise ClusterError(f"cannot reach the Ray cluster at {where}: {reason}. "
                           "Is the head running (`ray start --head`), and is [cluster] address / --cluster right?"
                           ) from None


def disconnect() -> None:
    """Drop the connection; a local Ray started by this process stops. (Ray does this itself when the
    process exits; tests call it to leave nothing running.)"""
    with _LOCK:
        _STATE.update(address=None, status=None)
        ray = sys.modules.get("ray")
        if ray is not None and ray.is_initialized():
            _THREAD.submit(ray.shutdown).result(timeout=CONNECT_TIMEOUT_S)
