"""Shipping the project to the workers: the project folder becomes the Ray working directory of
every task and actor of an iteration.

workbench packs the folder itself (`package.py` says what is left out: secrets, `.gitignore`d files,
state, virtualenvs, FIFOs and devices, links leading outside the project) instead of handing the
folder to Ray, whose own packer follows every link and opens FIFOs (blocking forever). The zip is
built in memory, so no temporary folder is left behind whatever happens to the run. Ray names the
package by a hash of its bytes (`gcs://_ray_pkg_<hash>.zip`) and it is uploaded only when the cluster
doesn't have it yet, so an unchanged project is not uploaded twice and a changed one gets fresh worker
processes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..config import Config
from .connection import INSTALL_HINT
from .package import PackingError, pack, package_uri, shipped_entries

DEFAULT_LIMIT = 512 * 2**20  # Ray's own bound on a package (its gRPC message size), when it doesn't say


class ShippingError(RuntimeError):
    """The project could not be packaged or uploaded; every row of the iteration gets the message."""


def ship_project(ray: ModuleType, config: Config) -> dict[str, Any]:
    """The runtime environment that gives a task or actor the project as its working directory
    (uploading the package when the cluster doesn't have this content yet). Blocking: run in a thread."""
    try:
        from ray._private.runtime_env import packaging
    except ImportError as exc:
        raise ShippingError(f"this Ray ({getattr(ray, '__version__', '?')}) has no package upload workbench can "
                            f"use ({exc}); install a Ray of the 2.x line workbench was tested with: "
                            f"{INSTALL_HINT}") from None
    limit = int(getattr(packaging, "GCS_STORAGE_MAX_SIZE", DEFAULT_LIMIT))
    try:
        data = pack(shipped_entries(config), limit)
    except PackingError as exc:
        raise ShippingError(f"could not pack the project folder {config.root} for the Ray cluster: {exc}") from None
    uri = package_uri(data)
    try:
        packaging.pin_runtime_env_uri(uri)  # kept on the cluster while the iteration's tasks start
        if not packaging.package_exists(uri):
            packaging.upload_package_to_gcs(uri, data)
    except Exception as exc:  # the cluster refusing the upload, a connection that broke
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ShippingError(f"could not ship the project folder {config.root} to the Ray cluster: {first}. "
                            "Large files can be left out with [cluster] ship_ignore") from None
    return {"working_dir": uri}
