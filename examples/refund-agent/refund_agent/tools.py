"""Tool handlers, as `tools.json` names them. A replay calls one only for a `"live": true` step, with the
step's arguments as its one argument; what it returns is the step's result."""

from __future__ import annotations

ORDERS = {
    "A-1001": {"orderId": "A-1001", "item": "Kettle", "total": 39.0, "refundable": True},
    "A-1002": {"orderId": "A-1002", "item": "Gift card", "total": 50.0, "refundable": False},
}


def lookup_order(arguments: dict) -> dict:
    order = ORDERS.get(arguments["orderId"])
    if order is None:
        return {"orderId": arguments["orderId"], "found": False}
    return {**order, "found": True}


def issue_refund(arguments: dict) -> dict:
    # A real handler would call the payment provider; evals give this tool's result in the script.
    return {"orderId": arguments["orderId"], "status": "refunded"}
