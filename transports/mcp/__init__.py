"""The MCP stdio server (`memesh-mcp`): the SDK's low-level Server serving the schema files as written."""
