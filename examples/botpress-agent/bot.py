"""A small deterministic support bot for the conversation evals (no model, no network).

workbench calls `reply(request)` once per turn with {"eval", "turn", "user" | "event" | "setup",
"state", "history"} and reads {"reply", "tools", "state", "workflows"} back. The bot keeps nothing
between calls: everything it remembers travels in `state`.
"""

import re

PRIORITY_WORDS = ("urgent", "asap", "down")


def reply(request: dict) -> dict:
    state = request["state"]
    if "setup" in request:
        return start_workflow(request["setup"]["workflow"], state)
    if "event" in request:
        return on_event(request["event"]["payload"], state)
    return on_message(request["user"], state)


def start_workflow(workflow: dict, state: dict) -> dict:
    user = {**state["user"], "onboarded": True, "id": workflow.get("input", {}).get("userId")}
    return {"reply": None, "state": {"user": user},
            "workflows": [{"name": workflow["trigger"], "entered": True, "completed": True,
                           "input": workflow.get("input", {})}]}


def on_event(payload: dict, state: dict) -> dict:
    order = payload.get("orderId", "?")
    conversation = {**state["conversation"], "lastOrder": order}
    return {"reply": f"Order {order} is confirmed: ${payload.get('total', 0):.2f} charged.",
            "state": {"conversation": conversation},
            "workflows": [{"name": "orderConfirmation", "entered": True, "completed": True}]}


def on_message(text: str, state: dict) -> dict:
    lowered = text.lower()
    conversation = dict(state["conversation"])
    if "ignore" in lowered:
        return {"reply": None}
    if re.search(r"\b(hi|hello|hey)\b", lowered):
        plan = state["user"].get("plan", "free")
        return {"reply": f"Hello! I'm the support bot. You're on the {plan} plan. How can I help?"}
    if "refund" in lowered:
        # The bug this example keeps on purpose: the bot promises a refund but never issues one.
        order = conversation.get("lastOrder", "your order")
        return {"reply": f"I've looked up {order}. Refunds take 5 business days.",
                "tools": [{"name": "lookupOrder", "params": {"orderId": order}, "output": {"status": "paid"}}]}
    if "ticket" in lowered:
        return open_ticket(lowered, state, conversation)
    if "thank" in lowered:
        conversation["resolved"] = True
        return {"reply": "You're welcome! Closing this conversation.", "state": {"conversation": conversation},
                "workflows": [{"name": "ticketFlow", "entered": True, "completed": True}]}
    conversation["topic"] = "support"
    return {"reply": "Sorry to hear that. Let me look up your account first.",
            "tools": [{"name": "lookupUser", "params": {"plan": state["user"].get("plan")},
                       "output": {"department": "IT Engineering"}}],
            "state": {"conversation": conversation}}


def open_ticket(lowered: str, state: dict, conversation: dict) -> dict:
    count = state["bot"].get("ticketCount", 0) + 1
    ticket = f"TKT-{count:03d}"
    priority = "high" if any(word in lowered for word in PRIORITY_WORDS) else "normal"
    conversation["ticketId"] = ticket
    return {"reply": f"Confirmed: I've created ticket {ticket} with {priority} priority for IT Engineering.",
            "tools": [{"name": "lookupUser", "params": {}, "output": {"department": "IT Engineering"}},
                      {"name": "createTicket", "params": {"priority": priority, "department": "IT Engineering"},
                       "output": {"id": ticket}}],
            "state": {"bot": {**state["bot"], "ticketCount": count}, "conversation": conversation},
            "workflows": [{"name": "ticketFlow", "entered": True, "completed": False}]}
