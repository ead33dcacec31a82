"""`updatedAt` and friends: a new timestamp written in exactly the format the old one used."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

_ISO = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:(?P<sep>[T ])(?P<hm>\d{2}:\d{2})(?P<sec>:\d{2})?(?P<frac>\.\d+)?)?"
    r"(?P<tz>Z|[+-]\d{2}:?\d{2})?$"
)
_EPOCH_MS = 10**11  # epoch numbers above this are milliseconds (seconds reach it in the year 5138)


def _zone(tz: str) -> timezone:
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def restamp(old: Any, now: datetime) -> Any | None:
    """`now` in the format of `old` (an ISO 8601 string or an epoch number), or None when the format
    is not one we recognise (the old value is then left alone)."""
    if now.tzinfo is None:
        now = now.astimezone()
    if isinstance(old, bool):
        return None
    if isinstance(old, int):
        return int(now.timestamp() * 1000) if old >= _EPOCH_MS else int(now.timestamp())
    if isinstance(old, float):
        return round(now.timestamp() * 1000, 3) if old >= _EPOCH_MS else round(now.timestamp(), 3)
    if not isinstance(old, str):
        return None
    match = _ISO.match(old)
    if not match:
        return None
    tz = match.group("tz")
    if tz == "Z":
        local = now.astimezone(UTC)
    elif tz:
        local = now.astimezone(_zone(tz))
    else:
        local = now.astimezone()
    text = local.strftime("%Y-%m-%d")
    if match.group("sep"):
        text += match.group("sep") + local.strftime("%H:%M")
        if match.group("sec"):
            text += local.strftime(":%S")
        frac = match.group("frac")
        if frac:
            digits = len(frac) - 1
            text += "." + f"{local.microsecond:06d}".ljust(digits, "0")[:digits]
    return text + (tz or "")
