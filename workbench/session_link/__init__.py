"""One loop, two drivers: a running TUI or `watch` session answers other processes of the same user on this
machine (a coding agent's `workbench mcp`), so an agent's run after an edit never starts a second run of
the same files.

Public API (for `workbench/agent/`, agreed in /work/notes/h6_h7_api.md):

    async def ask_live_session(root, selection=None, *, asked_by="agent", on_progress=None)
            -> LinkedIteration | None

* `root`: the project folder (its real path names the session); `selection`: a `rescoring.RowFilter`
  (sets, rows, tags, kinds, row_keys); `on_progress(done, total)`: rows of the iteration the answer
  waits on, called on the caller's loop.
* Returns `LinkedIteration(number, how, rows)`: `number` is the history iteration whose results answer
  the request — `how` = "joined" (the session's running iteration, proven to hold once it finished),
  "recorded" (its last iteration, proven to hold for the current files: nothing runs), or "ran" (a new
  iteration the session ran with trigger `agent`, shown as `asked by agent`).
* Returns None when no live session serves the project for this user, or it declines (no history,
  `--tag`/`--type` narrower than the request, names that select nothing), or dies or falls silent
  (no message for `protocol.STALL_S`): the caller then runs the iteration itself. It never hangs: the
  connect and every message have deadlines. Cancelling the await closes the connection; an `agent`
  iteration nobody waits for any more is then cancelled (the person's iterations never are).

The session's side is `LinkServer(session, on_asked=...)` (`await start()`, `await aclose()`), started by
`actions.watch_loop.WatchLoop` and the TUI (`tui/engine_link.py`); `on_asked(AgentAsk)` is where they say
`iteration 12 · asked by agent`. Transport: a Unix socket, on Linux in the abstract namespace (nothing on
disk), named from the user id and a digest of the project's real path; elsewhere `.workbench/session.sock`.
Both ends check the other's user id with the kernel (SO_PEERCRED):

* the session accepts in its own loop (`LinkServer._on_connections`) and closes another user's connection
  at once, before reading a byte or starting a handler, so a flood of them never takes a request's place;
  its backlog is 1024, and a client that finds it full waits in the kernel's queue (`dial.py`);
* the abstract name is predictable and any local user can bind it first. A session that finds it taken
  asks the holder who it is: this user's other session serves the project; another user's process is said
  ("the session name @workbench-… is held by another user's process (uid 1001): agent requests are served
  at …/.workbench/session.sock instead") and the session listens at that socket file, in a `.workbench`
  that is this user's and writable by nobody else (else it refuses to), so no other user can take it. A
  stale file there is found by a refused connection and replaced; a link is never followed;
* a client asks at the socket file when there is one, then at the name, and never a listener of another
  user; a session starting while another one of this user serves at the file leaves the serving to it.

Messages: newline-delimited JSON, at most `protocol.MAX_LINE` bytes each (`protocol.py`). Whether an
iteration answers is a proof with the re-scoring machinery (`rescoring/proof.py`), never a guess.
"""

from __future__ import annotations

from .client import LinkedIteration, ask_live_session
from .server import AgentAsk, LinkServer

__all__ = ["AgentAsk", "LinkServer", "LinkedIteration", "ask_live_session"]
