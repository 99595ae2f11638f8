"""Route handlers: decode the request, call the gate and the core, answer with `respond`. No business rule here."""
