"""The one Ray connection a workbench process holds, made on demand and kept for every iteration.

Ray's connection is process-wide (`ray.init` once), so this is too: the first iteration that needs the
cluster connects, later ones reuse it, and a different address (the settings file was edited) drops the
old connection first. `ray` is imported only here and only when a cluster is used; without it the
user is told how to install it. An unreachable address fails in seconds with the address in the
message, instead of Ray's own minute of retries.

Ray is made to behave like the rest of workbench (`_tame`): its messages (a worker died) go to stderr,
never into stdout where `--json` prints its document; its crash handler doesn't take SIGTERM over, so a
`kill` exits 143 as it does without a cluster; and a local Ray is stopped with every process it started
(its dashboard and runtime-env agents too, which Ray's own shutdown sometimes leaves running).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import faulthandler
import logging
import math
import os
import queue
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from ..config import ClusterConfig, Config, ConfigError
from ..runners.strays import ProcessInfo, descendants, kill_if_same

T = TypeVar("T")

# The distribution is `workbench-evals` (`workbench` on the package index is another project).
INSTALL_HINT = "pip install 'workbench-evals[ray]' (from a clone of workbench: pip install -e '.[ray]')"
LOCAL, AUTO = "local", "auto"
DEFAULT_CLIENT_PORT = 10001  # ray://head  (Ray Client)
DEFAULT_GCS_PORT = 6379  # head:port   (a driver on a cluster node)
PROBE_TIMEOUT_S = 5.0
# A reachable head still gets a bound: a local Ray starts in about 10 s on a loaded 2-core machine.
CONNECT_TIMEOUT_S = 120.0
# How long stopping waits for Ray's own shutdown before killing what a local Ray started.
SHUTDOWN_TIMEOUT_S = 30.0


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


async def in_background(job: Callable[..., T], *args: Any) -> T:
    """`asyncio.to_thread(job, *args)` on a daemon thread of its own: a Ctrl-C or a stop signal doesn't
    wait for a connection being made or a project being packed before workbench exits (the default
    executor's threads are joined on the way out)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        try:
            value, error = job(*args), None
        except BaseException as exc:  # handed to the awaiting task
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=work, name="workbench-cluster", daemon=True).start()
    return await future


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
        if address == LOCAL and not _STATE.get("stops_at_exit"):
            # Registered before Ray's own exit hook (and before the local Ray starts, so a Ctrl-C during
            # its start stops it too): Ray's hook alone sometimes leaves its agents running.
            atexit.register(disconnect)
            _STATE["stops_at_exit"] = True
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
    _tame(ray)
    if not faulthandler.is_enabled() and sys.__stderr__ is not None:
        # Ray turns this on with sys.stderr, which the TUI replaces with a stand-in whose fileno() is -1:
        # ray.init would fail there. Crash dumps go to the real stderr instead.
        with contextlib.suppress(ValueError, OSError):
            faulthandler.enable(file=sys.__stderr__, all_threads=False)
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR, "namespace": "workbench"}
    if address == LOCAL:
        cpus = math.ceil(cluster.max_in_flight * cluster.cpus_per_row) if cluster.max_in_flight else None
        _STATE.setdefault("children_before", _children())  # what is new after this is the local Ray's
        ray.init(num_cpus=cpus, include_dashboard=False, **options)
    else:
        ray.init(address=address, **options)
    return ClusterStatus(address, float(ray.cluster_resources().get("CPU", 0.0)))


def _tame(ray: ModuleType) -> None:
    """Before `ray.init`: Ray's own messages to stderr, and SIGTERM left to workbench. Each is skipped
    where this Ray has no such hook (the behaviour is then Ray's)."""
    with contextlib.suppress(ImportError, AttributeError):
        from ray._private import ray_constants

        # Ray's C++ crash handler also catches SIGTERM: it dumps a stack and the process then aborts (134)
        # instead of stopping as workbench's handler says (143). Python's faulthandler still reports crashes.
        ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
    with contextlib.suppress(ImportError, AttributeError):
        from ray._private import worker

        printer = worker.print_to_stdstream
        if not getattr(printer, "_workbench_stderr", False):
            # The driver prints what the cluster reports ("(raylet) A worker died ...") to stdout, which
            # carries workbench's own output (the --json document): send it to stderr instead.
            def to_stderr(data: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
                return printer({**data, "is_err": True}, *args, **kwargs)

            to_stderr._workbench_stderr = True  # type: ignore[attr-defined]
            worker.print_to_stdstream = to_stderr


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
    """Drop the connection; a local Ray started by this process stops, with every process it started.
    (workbench calls this on its way out, after a Ctrl-C too; tests call it to leave nothing running.)

    Ray's shutdown stops the processes it started itself, but not always the agents its raylet started;
    so the local Ray's processes are listed before and after it, and whatever of them outlives the
    shutdown is killed."""
    connecting = not _LOCK.acquire(timeout=1.0)  # held while a connection is made (a local Ray starting)
    try:
        _STATE.update(address=None, status=None)
        started = local_ray_processes()
        ray = sys.modules.get("ray")
        if ray is not None and (connecting or ray.is_initialized()):
            # On Ray's thread, so after a connection being made there: then it is shut down at once.
            with contextlib.suppress(Exception):  # timed out, or Ray failing on its way down
                _THREAD.submit(lambda: ray.shutdown() if ray.is_initialized() else None).result(
                    timeout=SHUTDOWN_TIMEOUT_S)
        kill_if_same({info.pid: info for info in [*started, *local_ray_processes()]}.values())
        if not connecting:
            _STATE.pop("children_before", None)
    finally:
        if not connecting:
            _LOCK.release()


def _children() -> set[tuple[int, int]]:
    """(pid, start time) of this process's children in its own session (targets have sessions of their own)."""
    me, session = os.getpid(), os.getsid(0)
    return {(info.pid, info.started) for info in descendants(me) if info.ppid == me and info.session == session}


def local_ray_processes() -> list[ProcessInfo]:
    """The processes of the local Ray this process started: the children it gained while `ray.init` ran
    (the GCS, the raylet, Ray's monitors) and everything below them in this session (workers, agents)."""
    before: set[tuple[int, int]] | None = _STATE.get("children_before")
    if before is None:
        return []
    me, session = os.getpid(), os.getsid(0)
    tree = [info for info in descendants(me) if info.session == session]
    by_parent: dict[int, list[ProcessInfo]] = {}
    for info in tree:
        by_parent.setdefault(info.ppid, []).append(info)
    found = [info for info in by_parent.get(me, []) if (info.pid, info.started) not in before]
    index = 0
    while index < len(found):  # each one's children are appended after it
        found += by_parent.get(found[index].pid, [])
        index += 1
    return found
