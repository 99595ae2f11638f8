"""The application layer: the tool registry and the one gate (`dispatch`) every transport calls."""
