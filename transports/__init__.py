"""The surfaces MeMesh is reached through: MCP (stdio), the CLI and the HTTP API. Installed as memesh.transports."""
