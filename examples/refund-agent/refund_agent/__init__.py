"""The refund agent's tools (a stand-in shop: orders live in a dict)."""
