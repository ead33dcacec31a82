"""The agent's side of the loop: what a coding agent reads after each iteration and the tools it drives the
loop with. Engine side: plain data and asyncio, no Textual; the MCP SDK is imported by `server.py` only.

- `digest.py`: the bounded, failing-first account of an iteration (`workbench run --brief`, the `run` tool);
- `loop_status.py`: stall and iterations since the last green, from history;
- `loop.py`: `AgentLoop`, the warm session between tool calls (handles, progress, cancellation, guard rails);
- `tools.py`: the tools' schemas and their answers (structured content + short text);
- `server.py`: the MCP server over stdio.
"""
