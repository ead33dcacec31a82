"""A tiny support agent that reports its tool calls: it looks up the customer, searches the
knowledge base for technical problems, and files a ticket in the right queue.

Reads {"customer": "...", "message": "..."} on stdin and prints {"reply": ..., "ticket": {...}}.
Everything it "calls" is faked locally; what matters is the trace it writes: one JSON line per tool
call, and one for token usage, appended to the file named by $WORKBENCH_TRACE.

It has a bug on purpose: refund requests land in the sales queue. Add "refund" to BILLING_WORDS and
watch the failing row turn green.
"""

import json
import os
import sys
import zlib

BILLING_WORDS = ("invoice", "charge", "payment")  # the rubric says refunds are billing too
TECHNICAL_WORDS = ("error", "crash", "log in", "password")
CUSTOMERS = {"ada@example.com": {"id": 7, "name": "Ada", "plan": "pro"},
             "bob@example.com": {"id": 8, "name": "Bob", "plan": "free"}}


def trace(event: dict) -> None:
    """Append one event to the trace file workbench gave us (nothing happens when run by hand)."""
    path = os.environ.get("WORKBENCH_TRACE")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps(event) + "\n")


def tool(name: str, args: dict, output):
    trace({"type": "tool_call", "name": name, "args": args, "output": output})
    return output


def queue_for(message: str) -> str:
    text = message.lower()
    if any(word in text for word in BILLING_WORDS):
        return "billing"
    if any(word in text for word in TECHNICAL_WORDS):
        return "technical"
    return "sales"


def handle(inputs: dict) -> dict:
    message, email = inputs["message"], inputs["customer"]
    customer = tool("lookupUser", {"email": email}, CUSTOMERS.get(email))
    queue = queue_for(message)
    if queue == "technical":
        tool("searchKb", {"query": message}, {"articles": ["KB-12: resetting your password"]})
    priority = "urgent" if "asap" in message.lower() or "urgent" in message.lower() else "normal"
    ticket_id = f"TKT-{zlib.crc32(message.encode()) % 1000:03d}"
    args = {"customer": customer["id"] if customer else None, "queue": queue, "priority": priority}
    tool("createTicket", args, {"id": ticket_id})
    trace({"type": "usage", "tokens": 40 + 3 * len(message.split())})
    name = customer["name"] if customer else "there"
    return {
        "reply": f"Thanks {name}, ticket {ticket_id} is with our {queue} team.",
        "ticket": {"id": ticket_id, "queue": queue, "priority": priority},
    }


if __name__ == "__main__":
    print(json.dumps(handle(json.load(sys.stdin))))
